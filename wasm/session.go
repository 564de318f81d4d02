//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/skillfs/skillfs/pkg/callargs"
	"github.com/skillfs/skillfs/pkg/resolver"
	"github.com/skillfs/skillfs/pkg/routing"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
	"github.com/skillfs/skillfs/pkg/wasmrun"
)

// sessionArgs name the session a call is about.
type sessionArgs struct {
	Session string `json:"session"`
}

// sessionMethod adapts a call on an open session taking arguments of type
// A (decoded from the same object as the session id). Sessions are the
// agent side, so the agent capability may call them.
func sessionMethod[A any](fn func(ctx context.Context, s *resolver.Session, a A) (result, error)) method {
	return method{agent: true, run: func(ctx context.Context, m *module, r request) (result, error) {
		var sa sessionArgs
		var a A
		if err := r.decode(&sa, &a); err != nil {
			return result{}, err
		}
		s, err := m.res.Session(sa.Session)
		if err != nil {
			return result{}, err
		}
		return fn(ctx, s, a)
	}}
}

type none struct{}

// clearMethod adapts one of the resolver's Clear methods: no arguments,
// the management side only.
func clearMethod(clear func(*resolver.Resolver, context.Context) error) method {
	return method{run: func(ctx context.Context, m *module, r request) (result, error) {
		if err := r.decode(&none{}); err != nil {
			return result{}, err
		}
		return result{}, clear(m.res, ctx)
	}}
}

// sessionMethods are the resolver's methods, by the names js/bridge.ts
// calls; main adds them to methods.
var sessionMethods = map[string]method{
	"resolver.openSession": {agent: true, run: func(ctx context.Context, m *module, r request) (result, error) {
		var a struct {
			ContextID      string   `json:"contextId"`
			Skills         []string `json:"skills"`
			AvailableTools []string `json:"availableTools"`
			BaseTools      []string `json:"baseTools"`
			MCPServers     []string `json:"mcpServers"`
			WorkingDir     string   `json:"workingDirectory"`
		}
		if err := r.decode(&a); err != nil {
			return result{}, err
		}
		s, err := m.res.OpenSession(ctx, resolver.SessionOptions{
			ContextID: a.ContextID, Skills: a.Skills, AvailableTools: a.AvailableTools, BaseTools: a.BaseTools, MCPServers: a.MCPServers,
			WorkingDirectory: a.WorkingDir,
		})
		if err != nil {
			return result{}, err
		}
		return result{value: sessionArgs{Session: s.ID()}}, nil
	}},
	// resolver.audit reads the audit log: the management side only.
	"resolver.audit": {run: func(ctx context.Context, m *module, r request) (result, error) {
		var a struct {
			Limit int `json:"limit"`
		}
		if err := r.decode(&a); err != nil {
			return result{}, err
		}
		return value(m.res.Audit(ctx, a.Limit))
	}},
	// The management side's answers to what agents write: pins,
	// statistics and the audit log, emptied.
	"resolver.clearPins":  clearMethod((*resolver.Resolver).ClearPins),
	"resolver.clearStats": clearMethod((*resolver.Resolver).ClearStats),
	"resolver.clearAudit": clearMethod((*resolver.Resolver).ClearAudit),
	"session.catalog": sessionMethod(func(ctx context.Context, s *resolver.Session, a resolver.CatalogOptions) (result, error) {
		return value(s.Catalog(ctx, a))
	}),
	"session.activate": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}) (result, error) {
		return value(s.ActivateWith(ctx, a.Name, a.Arguments))
	}),
	"session.commands": sessionMethod(func(_ context.Context, s *resolver.Session, _ none) (result, error) {
		return value(s.Commands())
	}),
	"session.always": sessionMethod(func(ctx context.Context, s *resolver.Session, _ none) (result, error) {
		return value(s.Always(ctx))
	}),
	"session.invoke": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Text string `json:"text"`
	}) (result, error) {
		return value(s.Invoke(ctx, a.Text))
	}),
	"session.readFile": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Path string `json:"path"`
	}) (result, error) {
		b, err := s.ReadFile(ctx, a.Path)
		return result{value: map[string]string{"mediaType": resolver.MediaType(a.Path, b)}, bytes: b}, err
	}),
	"session.activeTools": sessionMethod(func(_ context.Context, s *resolver.Session, _ none) (result, error) {
		return value(s.ActiveTools())
	}),
	"session.isToolAllowed": sessionMethod(func(_ context.Context, s *resolver.Session, a toolCall) (result, error) {
		return value(resolver.Decide(a.check(s)))
	}),
	// session.checkTool is isToolAllowed as an error: ToolNotAllowed, for
	// a host that routes tool calls through a try/catch.
	"session.checkTool": sessionMethod(func(_ context.Context, s *resolver.Session, a toolCall) (result, error) {
		return result{}, a.check(s)
	}),
	"session.route": sessionMethod(func(ctx context.Context, s *resolver.Session, a routeArgs) (result, error) {
		return value(s.Route(ctx, a.Query, a.options()))
	}),
	// session.startPlan and session.advance drive seed 004's fallback
	// state machine, one step per call.
	"session.startPlan": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		routeArgs
		Plan *routing.Plan `json:"plan"`
	}) (result, error) {
		return value(s.StartPlan(ctx, a.Query, a.Plan, a.options()))
	}),
	"session.advance": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Run string `json:"run"`
		resolver.StepOutcome
	}) (result, error) {
		return value(s.Advance(ctx, a.Run, a.StepOutcome))
	}),
	// session.vectorsNeeded and session.putVectors feed routing's
	// semantic stage with the host's embeddings (js/bridge.ts embeds).
	"session.vectorsNeeded": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Model string `json:"model"`
	}) (result, error) {
		return value(s.VectorsNeeded(ctx, a.Model))
	}),
	"session.putVectors": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Model   string                 `json:"model"`
		Vectors []resolver.SkillVector `json:"vectors"`
	}) (result, error) {
		return result{}, s.PutVectors(ctx, a.Model, a.Vectors)
	}),
	"session.recordOutcome": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		ID string `json:"id"`
		OK bool   `json:"ok"`
	}) (result, error) {
		return result{}, s.RecordOutcome(ctx, a.ID, a.OK)
	}),
	"session.pin": sessionMethod(func(ctx context.Context, s *resolver.Session, a idArgs) (result, error) {
		return value(s.Pin(ctx, a.ID))
	}),
	"session.unpin": sessionMethod(func(ctx context.Context, s *resolver.Session, a idArgs) (result, error) {
		return value(s.Unpin(ctx, a.ID))
	}),
	"session.pinned": sessionMethod(func(ctx context.Context, s *resolver.Session, _ none) (result, error) {
		return value(s.Pinned(ctx))
	}),
	"session.turn": sessionMethod(func(ctx context.Context, s *resolver.Session, _ none) (result, error) {
		return value(s.Turn(ctx))
	}),
	"session.select": sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Skills []string `json:"skills"`
	}) (result, error) {
		return value(s.Select(ctx, a.Skills))
	}),
	"session.refresh": sessionMethod(func(ctx context.Context, s *resolver.Session, _ none) (result, error) {
		return value(s.Refresh(ctx))
	}),
	"session.status": sessionMethod(func(_ context.Context, s *resolver.Session, _ none) (result, error) {
		return result{value: s.Status()}, nil
	}),
	"session.close": sessionMethod(func(ctx context.Context, s *resolver.Session, _ none) (result, error) {
		return result{}, s.Close(ctx)
	}),
	// A run of a skill's module: js/bridge.ts's session.execute prepares
	// it, runs it in the host's Worker and finishes it. The host itself
	// makes these two calls, with its own capability, for an agent whose
	// port it lets execute; an agent cannot make them.
	"session.execPrepare": hostOnly(sessionMethod(func(ctx context.Context, s *resolver.Session, a struct {
		Name string `json:"name"`
		wasmrun.Options
	}) (result, error) {
		x, b, err := s.PrepareExecution(ctx, a.Name, a.Options)
		return result{value: x, bytes: b}, err
	})),
	"session.execFinish": {run: func(ctx context.Context, m *module, r request) (result, error) {
		var sa sessionArgs
		var a struct {
			Token string `json:"token"`
			wasmrun.Outcome
			// StdoutLength splits the bytes: stdout, then stderr.
			StdoutLength int `json:"stdoutLength"`
		}
		if err := r.decode(&sa, &a); err != nil {
			return result{}, err
		}
		if a.StdoutLength < 0 || a.StdoutLength > len(r.bytes) {
			return result{}, skillerr.New(skillerr.InvalidArgument, "stdoutLength", "is not within the bytes")
		}
		a.Stdout, a.Stderr = r.bytes[:a.StdoutLength], r.bytes[a.StdoutLength:]
		res, err := m.res.FinishExecution(ctx, sa.Session, a.Token, a.Outcome)
		return result{value: res}, err
	}},
}

// hostOnly closes m to the agent capability.
func hostOnly(m method) method {
	m.agent = false
	return m
}

// routeArgs are a message to route and the routing options.
type routeArgs struct {
	Query       string    `json:"query"`
	History     []string  `json:"history"`
	Context     string    `json:"context"`
	TopK        int       `json:"topK"`
	Threshold   float64   `json:"threshold"`
	Margin      float64   `json:"margin"`
	QueryVector []float32 `json:"queryVector"`
	Model       string    `json:"model"`
}

func (a routeArgs) options() resolver.RouteOptions {
	return resolver.RouteOptions{History: a.History, Context: a.Context,
		TopK: a.TopK, Threshold: a.Threshold, Margin: a.Margin, QueryVector: a.QueryVector, Model: a.Model}
}

// toolCall is a tool call to check: its input is a string (a command
// line, a path, a URL) or the structured input an agent framework passes,
// checked on the field Fields (else the defaults) names for the tool.
type toolCall struct {
	Name   string            `json:"name"`
	Input  json.RawMessage   `json:"input"`
	Fields map[string]string `json:"fields"`
}

func (c toolCall) check(s *resolver.Session) error {
	in := bytes.TrimSpace(c.Input)
	if len(in) > 0 && in[0] == '{' {
		obj, err := toolrule.DecodeInput(c.Name, in, callargs.Agent.String)
		if err != nil {
			return err
		}
		return s.CheckToolInput(c.Name, obj, c.Fields)
	}
	var str string
	if len(in) > 0 && string(in) != "null" {
		if err := json.Unmarshal(in, &str); err != nil {
			return skillerr.Wrap(skillerr.InvalidArgument, c.Name, err, "the tool input must be a string or an object")
		}
	}
	return s.CheckTool(c.Name, str)
}
