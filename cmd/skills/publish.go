package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/source"
	"github.com/skillfs/skillfs/pkg/zipguard"
)

// index writes a v0.2.0 discovery index of the skills in DIR, and beside
// it the artifacts it lists: NAME/SKILL.md for a skill that is nothing
// else, NAME.zip (SKILL.md at its root) for one with more files. The
// folder holding the index is what a site publishes at
// /.well-known/agent-skills/.
func index(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("index", flag.ContinueOnError)
	out := fl.String("o", "", "the index to write")
	dirs, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 || *out == "" {
		return usageError("index needs one DIR and -o OUT/index.json")
	}
	skills, err := findSkills(dirs[0])
	if err != nil {
		return err
	}
	outDir := filepath.Dir(*out)
	var items []source.Published
	for _, f := range skills {
		s, err := loadValid(f, stderr)
		if err != nil {
			return err
		}
		files := f.files
		p := source.Published{Name: s.Name, Description: s.Description}
		if len(files) == 1 {
			p.Type, p.URL, p.Data = source.TypeSkillMD, s.Name+"/SKILL.md", files[0].Data
		} else {
			var buf bytes.Buffer
			if err := zipguard.Write(&buf, files, ""); err != nil {
				return err
			}
			p.Type, p.URL, p.Data = source.TypeArchive, s.Name+".zip", buf.Bytes()
		}
		items = append(items, p)
	}
	idx, err := source.WriteIndex(items)
	if err != nil {
		return err
	}
	for _, p := range items {
		dst := filepath.Join(outDir, filepath.FromSlash(p.URL))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, p.Data, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(*out, idx, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d skill(s)\n", *out, len(items))
	return nil
}

// installCheck fetches URL — a discovery index, or one artifact — and
// checks everything skillfs would before installing it, installing
// nothing: digests, sizes, the archive guard, every SKILL.md. It prints
// one line per skill and fails when any is refused.
func installCheck(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("install-check", flag.ContinueOnError)
	digest := fl.String("digest", "", "the sha256:… digest a single artifact must have")
	urls, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(urls) != 1 {
		return usageError("install-check needs one URL")
	}
	u := urls[0]
	data, err := download(u, zipguard.DefaultLimits().MaxArchiveSize)
	if err != nil {
		return err
	}
	// What is not an index at all (not JSON of its shape, or larger than
	// one may be) is an artifact; an index that is refused is refused.
	idx, ierr := source.ParseIndex(u, data)
	notIndex := skillerr.ReasonOf(ierr) == source.ReasonMalformed || skillerr.CodeOf(ierr) == skillerr.TooLarge
	if ierr != nil && !notIndex {
		return ierr
	}
	refused := 0
	report := func(name string, err error) {
		if err != nil {
			refused++
			fmt.Fprintf(stdout, "refused %s: %s\n", name, describe(err))
		}
	}
	if ierr != nil {
		o := source.Origin{Kind: source.KindURL, URL: u, Digest: *digest, Verified: *digest != ""}
		report(u, checkArtifact(o, "", data, stdout))
	} else {
		fmt.Fprintf(stdout, "index %s (v%s): %d skill(s)\n", idx.URL, idx.Version, len(idx.Entries))
		for _, r := range idx.Skipped {
			fmt.Fprintf(stdout, "skipped %s: %s (%s): %s\n", r.Name, r.Code, r.Reason, r.Message)
		}
		for _, e := range idx.Entries {
			report(e.Name, checkEntry(idx, e, stdout))
		}
	}
	if refused > 0 {
		return errInvalid
	}
	return nil
}

func checkEntry(idx *source.Index, e source.Entry, stdout io.Writer) error {
	o := source.ForEntry(idx, e)
	if e.Type != source.TypeFiles {
		data, err := download(e.URL, zipguard.DefaultLimits().MaxArchiveSize)
		if err != nil {
			return err
		}
		return checkArtifact(o, e.Name, data, stdout)
	}
	var blob []byte
	lengths := make([]int64, len(e.Files))
	for i, f := range e.Files {
		b, err := download(f.URL, zipguard.DefaultLimits().MaxFileSize)
		if err != nil {
			return err
		}
		blob, lengths[i] = append(blob, b...), int64(len(b))
	}
	zb, o, err := source.PrepareFiles(o, e.Name, e.Files, lengths, blob)
	if err != nil {
		return err
	}
	return checkArchive(e.Name, zb, o, stdout)
}

func checkArtifact(o source.Origin, dir string, data []byte, stdout io.Writer) error {
	zb, o, err := source.PrepareArtifact(o, dir, data)
	if err != nil {
		return err
	}
	return checkArchive(dir, zb, o, stdout)
}

// checkArchive runs the archive guard and the lenient SKILL.md parser, as
// an install does, and prints what would be installed.
func checkArchive(name string, zb []byte, o source.Origin, stdout io.Writer) error {
	arc, err := zipguard.ReadAny(zb, zipguard.DefaultLimits())
	if err != nil {
		return err
	}
	for _, s := range arc.Skills {
		sk, diags := skill.Load(s.FS(), ".", skill.Options{Mode: skill.Lenient, DirName: s.Name})
		if sk == nil {
			return skill.AsError(path.Join(name, s.Dir), diags)
		}
		verified := "verified " + o.Digest
		if !o.Verified {
			verified = "UNVERIFIED (no published digest), received " + o.Digest
		}
		fmt.Fprintf(stdout, "ok %s: %d file(s), %s\n", sk.Name, len(s.Files), verified)
	}
	return nil
}

// client bounds every request of install-check.
var client = &http.Client{Timeout: 30 * time.Second}

// download returns the body at url, refusing one larger than max bytes
// by its Content-Length or, without one, by counting.
func download(url string, max int64) ([]byte, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, skillerr.Wrap(skillerr.FetchFailed, url, err, "cannot fetch it")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &skillerr.Error{Code: skillerr.FetchFailed, Reason: "http-status", Subject: url, Msg: fmt.Sprintf("the server answered %s", resp.Status)}
	}
	tooLarge := &skillerr.Error{Code: skillerr.TooLarge, Reason: "download-too-large", Subject: url,
		Msg: fmt.Sprintf("it is larger than the %d bytes allowed", max)}
	if resp.ContentLength > max {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, skillerr.Wrap(skillerr.FetchFailed, url, err, "the download broke off")
	}
	if int64(len(data)) > max {
		return nil, tooLarge
	}
	return data, nil
}
