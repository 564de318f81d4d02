//go:build js && wasm

package main

import (
	"context"

	"github.com/skillfs/skillfs/pkg/pacedjson"
	"github.com/skillfs/skillfs/pkg/registry"
)

// idArgs name a skill; pathArgs a path inside it.
type idArgs struct {
	ID string `json:"id"`
}

type pathArgs struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// adminMethod adapts a registry call taking arguments of type A.
func adminMethod[A any](fn func(ctx context.Context, reg *registry.Registry, a A, r request) (result, error)) method {
	return method{run: func(ctx context.Context, m *module, r request) (result, error) {
		var a A
		if err := r.decode(&a); err != nil {
			return result{}, err
		}
		return fn(ctx, m.reg, a, r)
	}}
}

// outside marks m as getting its bytes in JavaScript (request.held).
func outside(m method) method {
	m.outside = true
	return m
}

// value wraps a plain result.
func value[T any](v T, err error) (result, error) { return result{value: v}, err }

// methods is the API, by the names js/bridge.ts calls.
var methods = map[string]method{
	"registry.importZip": outside(adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		OnConflict registry.ConflictPolicy            `json:"onConflict"`
		Source     string                             `json:"source"`
		Copy       bool                               `json:"copy"`
		Choose     map[string]registry.ConflictPolicy `json:"choose"`
		Compared   map[string]string                  `json:"compared"`
	}, r request) (result, error) {
		// The archive, and the files as they are inflated, stay in
		// JavaScript until stored: the module's memory never shrinks.
		return value(reg.Import(ctx, nil, registry.ImportOptions{
			OnConflict: a.OnConflict, Source: a.Source, Copy: a.Copy, Choose: a.Choose, Compared: a.Compared, Progress: progressTo(r),
			Outside: r.held,
		}))
	})),
	"registry.previewZip": outside(adminMethod(func(ctx context.Context, reg *registry.Registry, _ struct{}, r request) (result, error) {
		return value(reg.Preview(ctx, nil, r.held, nil))
	})),
	"registry.previewNotes": adminMethod(func(_ context.Context, _ *registry.Registry, a struct {
		Preview struct {
			registry.ImportPreview
			// Thousands of rows decode a few at a time (see
			// pacedjson.List): this field, shallower, takes "skills"
			// from the embedded one, which gets every other field.
			Skills pacedjson.List[registry.PreviewSkill] `json:"skills"`
		} `json:"preview"`
		Choose map[string]registry.ConflictPolicy `json:"choose"`
		Copy   bool                               `json:"copy"`
	}, _ request) (result, error) {
		p := a.Preview.ImportPreview
		p.Skills = a.Preview.Skills
		return value(registry.PreviewNotes(&p, a.Choose, a.Copy))
	}),
	"registry.list": adminMethod(func(ctx context.Context, reg *registry.Registry, _ struct{}, _ request) (result, error) {
		b, err := reg.ListJSON(ctx) // the records as stored: JSON.parse decodes them faster than Go
		return result{json: b}, err
	}),
	"registry.get": adminMethod(func(ctx context.Context, reg *registry.Registry, a idArgs, _ request) (result, error) {
		return value(reg.Get(ctx, a.ID))
	}),
	"registry.setEnabled": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		ID string `json:"id"`
		On bool   `json:"on"`
	}, _ request) (result, error) {
		return value(reg.SetEnabled(ctx, a.ID, a.On))
	}),
	"registry.remove": adminMethod(func(ctx context.Context, reg *registry.Registry, a idArgs, _ request) (result, error) {
		return result{}, reg.Remove(ctx, a.ID)
	}),
	"registry.setEnabledMany": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		IDs []string `json:"ids"`
		On  bool     `json:"on"`
	}, _ request) (result, error) {
		return value(reg.SetEnabledMany(ctx, a.IDs, a.On))
	}),
	"registry.removeMany": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		IDs []string `json:"ids"`
	}, _ request) (result, error) {
		return result{}, reg.RemoveMany(ctx, a.IDs)
	}),
	"registry.exportZip": adminMethod(func(ctx context.Context, reg *registry.Registry, a idArgs, _ request) (result, error) {
		b, err := reg.ExportZip(ctx, a.ID)
		return result{bytes: b}, err
	}),
	"registry.tree": adminMethod(func(ctx context.Context, reg *registry.Registry, a idArgs, _ request) (result, error) {
		return value(reg.Tree(ctx, a.ID))
	}),
	"registry.readFile": adminMethod(func(ctx context.Context, reg *registry.Registry, a pathArgs, _ request) (result, error) {
		b, err := reg.ReadFile(ctx, a.ID, a.Path)
		return result{bytes: b}, err
	}),
	"registry.writeFile": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		ID   string `json:"id"`
		Path string `json:"path"`
		Text string `json:"text"`
	}, _ request) (result, error) {
		return value(reg.WriteFile(ctx, a.ID, a.Path, a.Text))
	}),
	"registry.mkdir": adminMethod(func(ctx context.Context, reg *registry.Registry, a pathArgs, _ request) (result, error) {
		return value(reg.Mkdir(ctx, a.ID, a.Path))
	}),
	"registry.removePath": adminMethod(func(ctx context.Context, reg *registry.Registry, a pathArgs, _ request) (result, error) {
		return value(reg.RemovePath(ctx, a.ID, a.Path))
	}),
	"registry.rename": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		ID   string `json:"id"`
		From string `json:"from"`
		To   string `json:"to"`
	}, _ request) (result, error) {
		return value(reg.Rename(ctx, a.ID, a.From, a.To))
	}),
	"registry.setDependencies": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		ID string `json:"id"`
		registry.Dependencies
	}, _ request) (result, error) {
		return value(reg.SetDependencies(ctx, a.ID, a.Dependencies))
	}),
	"registry.registerTools": adminMethod(func(_ context.Context, reg *registry.Registry, a struct {
		Names []string `json:"names"`
	}, _ request) (result, error) {
		reg.RegisterTools(a.Names)
		return result{}, nil
	}),
	"registry.registered": adminMethod(func(_ context.Context, reg *registry.Registry, _ struct{}, _ request) (result, error) {
		tools, mcp := reg.Registered()
		return value(struct {
			Tools []string `json:"tools"`
			MCP   []string `json:"mcp"`
		}{tools, mcp}, nil)
	}),
	"registry.registerMcpServers": adminMethod(func(_ context.Context, reg *registry.Registry, a struct {
		Names []string `json:"names"`
	}, _ request) (result, error) {
		reg.RegisterMCPServers(a.Names)
		return result{}, nil
	}),
	"registry.revision": adminMethod(func(ctx context.Context, reg *registry.Registry, _ struct{}, _ request) (result, error) {
		return value(reg.Revision(ctx))
	}),
}

// progressTo returns the Progress function of a call: it forwards each
// report to the caller's onProgress. The import paces itself (pkg/pace).
func progressTo(r request) func(registry.Progress) {
	return func(p registry.Progress) { notify(r.progress, jsValueOf(p)) }
}
