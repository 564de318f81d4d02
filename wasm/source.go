//go:build js && wasm

package main

import (
	"cmp"
	"context"

	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
)

// installArgs are the arguments shared by the install methods: the origin
// the bridge was handed by parseIndex or parseMcp (or made for a URL), the
// directory name a lone SKILL.md gets, and the registry's options.
type installArgs struct {
	Origin     source.Origin           `json:"origin"`
	Dir        string                  `json:"dir"`
	OnConflict registry.ConflictPolicy `json:"onConflict"`
	// Target is the id of the installed skill an update replaces.
	Target string `json:"target"`
	// SkipInvalid installs an archive's valid skills and reports the others.
	SkipInvalid bool `json:"skipInvalid"`
	// Choose is a person's choice after source.previewArtifact (see
	// registry.ImportOptions.Choose).
	Choose map[string]registry.ConflictPolicy `json:"choose"`
	// Compared: what the preview compared each skill chosen with
	// (registry.ImportOptions.Compared).
	Compared map[string]string `json:"compared"`
	// Previewed: the bytes are those previewed, whose digest Origin has
	// (source.PreparePreviewed).
	Previewed bool `json:"previewed"`
	// Elsewhere: of an update, the other entries of Origin's index
	// (registry.ImportOptions.Elsewhere).
	Elsewhere []string `json:"elsewhere"`
}

func (a installArgs) importOptions(o source.Origin, r request) registry.ImportOptions {
	// Copy: a skill installed from a source records its origin, which
	// updates follow, so the same bytes from another source are another
	// install, not the one already there.
	return registry.ImportOptions{OnConflict: a.OnConflict, Source: originURL(o), Origin: &o, Target: a.Target, Copy: true,
		SkipInvalid: a.SkipInvalid, Choose: a.Choose, Compared: a.Compared, Elsewhere: a.Elsewhere, Progress: progressTo(r)}
}

// sourceImport is an install's ImportResult with the warning of each
// skill it left as it is, installed from the source already byte for byte
// (source.AlreadyInstalled), for the bridge to report as it is.
type sourceImport struct {
	*registry.ImportResult
	Already []source.Refusal `json:"already"`
}

func withAlready(res *registry.ImportResult, err error) (sourceImport, error) {
	if err != nil {
		return sourceImport{}, err
	}
	return sourceImport{ImportResult: res, Already: source.LeftAsTheyAre(res.AlreadyInstalled)}, nil
}

// originURL is what Meta.Source shows of an origin.
func originURL(o source.Origin) string {
	if o.Kind == source.KindMCP {
		return o.Server + " " + o.URI
	}
	return o.URL
}

// installedSkills returns the installed skills, each with its origin (the
// zero Origin when it has none) and digest.
func installedSkills(ctx context.Context, reg *registry.Registry) ([]source.Installed, error) {
	list, err := reg.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]source.Installed, len(list))
	for i, m := range list {
		out[i].ID, out[i].Digest = m.ID, m.Digest
		if m.Origin != nil {
			out[i].Origin = *m.Origin
		}
	}
	return out, nil
}

// sourceMethods turn what the bridge fetched into verified installs; the
// decisions are pkg/source's.
var sourceMethods = map[string]method{
	// The entries of an index to install, each with what it is against
	// the installed skills now (source.ReviewIndex): one installed from
	// the same entry is left as it is or updated in place, not copied.
	"source.parseIndex": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		URL   string   `json:"url"`
		Names []string `json:"names"`
		// Previewed is the digest of the index a person reviewed: its
		// bytes, kept by the caller, are what is installed from.
		Previewed string `json:"previewed"`
	}, r request) (result, error) {
		digest, err := source.ListingDigest(r.bytes, a.Previewed, source.ListingIndex, a.URL)
		if err != nil {
			return result{}, err
		}
		idx, err := source.ParseIndex(a.URL, r.bytes)
		if err != nil {
			return result{}, err
		}
		sel, refused := idx.Select(a.Names)
		in, err := installedSkills(ctx, reg)
		if err != nil {
			return result{}, err
		}
		// Names: every entry's, reviewed or not, for an update to name the
		// other entries as where a skill it needs is published.
		names := make([]string, len(idx.Entries))
		for i, e := range idx.Entries {
			names[i] = e.Name
		}
		// Unusable: of the names asked, those the index lists but skipped,
		// in the words an update of a skill from one is refused with.
		return value(map[string]any{"url": idx.URL, "version": idx.Version, "entries": source.ReviewIndex(in, registry.IDKey, idx, sel),
			"skipped": idx.Skipped, "refused": nonNil(refused), "unusable": idx.Unusable(a.Names), "digest": digest, "names": names}, nil)
	}),
	// The skills of a listing to install, each decided against the
	// installed skills now (source.ChooseMCP): the person's choice from a
	// review, or the caller's policy.
	"source.parseMcp": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		Server string   `json:"server"`
		Skills []string `json:"skills"`
		// Choose is a person's choice after source.reviewMcp, as
		// registry.ImportOptions.Choose.
		Choose     map[string]registry.ConflictPolicy `json:"choose"`
		OnConflict registry.ConflictPolicy            `json:"onConflict"`
		// Previewed is the digest of the listing a person reviewed
		// (source.reviewMcp): its bytes are what is installed from.
		Previewed string `json:"previewed"`
	}, r request) (result, error) {
		if a.Previewed != "" {
			if _, err := source.ListingDigest(r.bytes, a.Previewed, source.ListingMCP, a.Server); err != nil {
				return result{}, err
			}
		}
		if err := registry.CheckChoose(a.Choose); err != nil {
			return result{}, err
		}
		skills, skipped, err := source.ParseMCP(r.bytes)
		if err != nil {
			return result{}, err
		}
		in, err := installedSkills(ctx, reg)
		if err != nil {
			return result{}, err
		}
		policy := cmp.Or(a.OnConflict, registry.ConflictRename)
		offers := source.ReviewMCP(in, registry.IDKey, a.Server, skills)
		plans, left, refused, err := source.ChooseMCP(a.Server, skills, offers, a.Skills, a.Choose, policy, registry.ConflictReplace)
		if err != nil {
			return result{}, err
		}
		return value(map[string]any{"skills": plans, "skipped": skipped, "refused": refused, "warnings": left}, nil)
	}),
	// What a server's listing offers, against the installed skills; nothing
	// is fetched or stored.
	"source.reviewMcp": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		Server string `json:"server"`
	}, r request) (result, error) {
		skills, skipped, err := source.ParseMCP(r.bytes)
		if err != nil {
			return result{}, err
		}
		in, err := installedSkills(ctx, reg)
		if err != nil {
			return result{}, err
		}
		return value(map[string]any{"skills": source.ReviewMCP(in, registry.IDKey, a.Server, skills), "skipped": skipped,
			"digest": source.Sum(r.bytes)}, nil)
	}),
	// What to download for a URL a person gave (a repository's page on
	// GitHub is not an archive), the origin it installs under and its
	// warnings.
	"source.locate": adminMethod(func(_ context.Context, _ *registry.Registry, a struct {
		URL    string `json:"url"`
		Digest string `json:"digest"`
	}, _ request) (result, error) {
		return value(source.ForURL(a.URL, a.Digest))
	}),
	// What installing an artifact would install, against the installed
	// skills, and the origin it would record; nothing is stored.
	"source.previewArtifact": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		Origin source.Origin `json:"origin"`
		Dir    string        `json:"dir"`
	}, r request) (result, error) {
		zb, o, err := source.PrepareArtifact(a.Origin, a.Dir, r.bytes)
		if err != nil {
			return result{}, err
		}
		p, err := reg.Preview(ctx, zb, nil, &o)
		if err != nil {
			return result{}, err
		}
		return value(map[string]any{"skills": p.Skills, "dropped": p.Dropped, "installedSkills": p.InstalledSkills, "origin": o}, nil)
	}),
	"registry.installArtifact": adminMethod(func(ctx context.Context, reg *registry.Registry, a installArgs, r request) (result, error) {
		prepare := source.PrepareArtifact
		if a.Previewed {
			prepare = source.PreparePreviewed
		}
		zb, o, err := prepare(a.Origin, a.Dir, r.bytes)
		if err != nil {
			return result{}, err
		}
		return value(withAlready(reg.Import(ctx, zb, a.importOptions(o, r))))
	}),
	"registry.installFiles": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		installArgs
		Files   []source.FileRef `json:"files"`
		Lengths []int64          `json:"lengths"`
	}, r request) (result, error) {
		zb, o, err := source.PrepareFiles(a.Origin, a.Dir, a.Files, a.Lengths, r.bytes)
		if err != nil {
			return result{}, err
		}
		return value(withAlready(reg.Import(ctx, zb, a.importOptions(o, r))))
	}),
	// The skills of one download (a repository's) updated from it, each
	// in its own commit from its own folder, the download prepared and
	// read once for all (Registry.ImportEach): what became of each.
	"registry.updateDownload": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		OnConflict registry.ConflictPolicy `json:"onConflict"`
		Updates    []struct {
			Target string        `json:"target"`
			Origin source.Origin `json:"origin"`
		} `json:"updates"`
	}, r request) (result, error) {
		type outcome struct {
			Skill *registry.Meta `json:"skill,omitempty"`
			// Installed: the skills of the download installed with it,
			// which its new version depends on.
			Installed []registry.Meta `json:"installed,omitempty"`
			Code      skillerr.Code   `json:"code,omitempty"`
			Reason    string          `json:"reason,omitempty"`
			Message   string          `json:"message,omitempty"`
		}
		out := make([]outcome, len(a.Updates))
		if len(a.Updates) == 0 {
			return value(out, nil)
		}
		zb, o, err := source.PrepareArtifact(a.Updates[0].Origin, "", r.bytes)
		if err != nil {
			return result{}, err
		}
		each := make([]registry.ImportOptions, len(a.Updates))
		for i, u := range a.Updates {
			o.Dir = u.Origin.Dir
			each[i] = installArgs{OnConflict: a.OnConflict, Target: u.Target}.importOptions(o, r)
		}
		results, errs := reg.ImportEach(ctx, zb, each)
		if err := ctx.Err(); err != nil {
			return result{}, err // aborted: updateMany ends, as at any other step
		}
		for i, err := range errs {
			if err != nil {
				out[i] = outcome{Code: skillerr.CodeOf(err), Reason: skillerr.ReasonOf(err), Message: err.Error()}
			} else {
				out[i].Skill, out[i].Installed = &results[i].Skills[0], results[i].Skills[1:]
			}
		}
		return value(out, nil)
	}),
	"source.checkIndex": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		URL string `json:"url"`
	}, r request) (result, error) {
		idx, err := source.ParseIndex(a.URL, r.bytes)
		if err != nil {
			return result{}, err
		}
		in, err := installedSkills(ctx, reg)
		return value(source.CheckIndex(in, idx), err)
	}),
	"source.checkMcp": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		Server string `json:"server"`
	}, r request) (result, error) {
		skills, _, err := source.ParseMCP(r.bytes)
		if err != nil {
			return result{}, err
		}
		in, err := installedSkills(ctx, reg)
		return value(source.CheckMCP(in, a.Server, skills), err)
	}),
	"source.checkBytes": adminMethod(func(ctx context.Context, reg *registry.Registry, a struct {
		IDs  []string `json:"ids"`
		ETag string   `json:"etag"`
	}, r request) (result, error) {
		return value(reg.CheckDownload(ctx, a.IDs, r.bytes, a.ETag))
	}),
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
