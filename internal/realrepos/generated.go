package realrepos

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// GeneratedName is the OWNER+NAME the generated download stands for.
const GeneratedName = "generated+skills"

// GeneratedSkills is how many skills Generated holds.
const GeneratedSkills = 7

// LinkInSkill is the entry of GeneratedWithLinkInSkill that must fail the
// import: a symbolic link inside a skill.
const LinkInSkill = "skills-main/skills/pdf/forms/current.md"

// genEntry is one entry of a generated download.
type genEntry struct {
	name   string
	data   string
	mode   fs.FileMode // 0: a 0644 file
	stored bool
}

// generated reproduces, small, what the real downloads hold that matters
// to an importer: one NAME-main/ wrapper with directory entries; a symbolic
// link at the root (AGENTS.md -> CLAUDE.md, obra/superpowers and
// vercel-labs/agent-skills) and link shims in a plugin folder outside every
// skill (trailofbits/skills); skills under hidden folders (.curated/,
// .system/, openai/skills); a SKILL.md with CRLF line breaks
// (K-Dense-AI); a nested Archive.zip inside a skill and a NAME.zip beside
// it (vercel-labs); a skill inside a plugin; executable scripts; a
// nested SKILL.md that belongs to its outer skill; a git archive comment.
func generated() []genEntry {
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nUse it when " + desc + "\n"
	}
	crlf := strings.ReplaceAll("---\nname: crlf-notes\ndescription: Notes written on Windows, with CRLF line breaks.\nlicense: MIT\n---\n\n# CRLF notes\n\nEach line ends in CR LF.\n", "\n", "\r\n")
	return []genEntry{
		{name: "skills-main/"},
		{name: "skills-main/.github/"},
		{name: "skills-main/.github/workflows/"},
		{name: "skills-main/.github/workflows/ci.yml", data: "on: push\n"},
		{name: "skills-main/AGENTS.md", data: "CLAUDE.md", mode: fs.ModeSymlink | 0o777},
		{name: "skills-main/CLAUDE.md", data: "# Repository notes\n"},
		{name: "skills-main/LICENSE", data: "MIT\n"},
		{name: "skills-main/README.md", data: "# Skills\n"},
		{name: "skills-main/plugins/"},
		{name: "skills-main/plugins/modern-python/"},
		{name: "skills-main/plugins/modern-python/hooks/"},
		{name: "skills-main/plugins/modern-python/hooks/shims/"},
		{name: "skills-main/plugins/modern-python/hooks/shims/pip3", data: "uv", mode: fs.ModeSymlink | 0o777},
		{name: "skills-main/plugins/modern-python/hooks/shims/python3", data: "python", mode: fs.ModeSymlink | 0o777},
		{name: "skills-main/plugins/modern-python/hooks/shims/uv", data: "#!/bin/sh\nexec uv \"$@\"\n", mode: 0o755},
		{name: "skills-main/plugins/modern-python/skills/"},
		{name: "skills-main/plugins/modern-python/skills/modern-python/"},
		{name: "skills-main/plugins/modern-python/skills/modern-python/SKILL.md", data: skill("modern-python", "a Python project needs uv, ruff and type checking.")},
		{name: "skills-main/skills/"},
		{name: "skills-main/skills/.curated/"},
		{name: "skills-main/skills/.curated/gh-fix-ci/"},
		{name: "skills-main/skills/.curated/gh-fix-ci/SKILL.md", data: skill("gh-fix-ci", "a GitHub Actions check fails.")},
		{name: "skills-main/skills/.system/"},
		{name: "skills-main/skills/.system/skill-installer/"},
		{name: "skills-main/skills/.system/skill-installer/.env.example", data: "TOKEN=\n"},
		{name: "skills-main/skills/.system/skill-installer/SKILL.md", data: skill("skill-installer", "the user asks to install a skill.")},
		{name: "skills-main/skills/.system/skill-installer/scripts/"},
		{name: "skills-main/skills/.system/skill-installer/scripts/install.py", data: "#!/usr/bin/env python3\nprint('install')\n", mode: 0o755},
		{name: "skills-main/skills/crlf-notes/"},
		{name: "skills-main/skills/crlf-notes/SKILL.md", data: crlf},
		{name: "skills-main/skills/deploy.zip", data: string(nestedZip()), stored: true},
		{name: "skills-main/skills/deploy/"},
		{name: "skills-main/skills/deploy/Archive.zip", data: string(nestedZip()), stored: true},
		{name: "skills-main/skills/deploy/SKILL.md", data: skill("deploy", "the user asks to deploy the project.")},
		{name: "skills-main/skills/pdf/"},
		{name: "skills-main/skills/pdf/SKILL.md", data: skill("pdf", "a PDF must be read, filled or merged.")},
		{name: "skills-main/skills/pdf/forms/"},
		{name: "skills-main/skills/pdf/forms/fields.md", data: "# Fields\n"},
		{name: "skills-main/skills/pdf/scripts/"},
		{name: "skills-main/skills/pdf/scripts/fill.sh", data: "#!/bin/sh\necho fill\n", mode: 0o755},
		{name: "skills-main/skills/template/"},
		{name: "skills-main/skills/template/SKILL.md", data: skill("template-skill", "a new skill is started (its name differs from its folder).")},
		{name: "skills-main/skills/template/examples/demo/SKILL.md", data: skill("demo", "never: it belongs to the template.")},
	}
}

// nestedZip is the archive a skill carries as a file: a skill of its own,
// which the importer stores as bytes and never opens.
func nestedZip() []byte {
	return write([]genEntry{{name: "inner/SKILL.md", data: "---\nname: inner\ndescription: Inside a nested zip.\n---\n"}}, "")
}

// genTime dates every entry, so the output depends on nothing else.
var genTime = time.Date(2026, 8, 21, 14, 9, 0, 0, time.UTC)

// write makes a zip of entries as git archive does: Unix modes, the
// commit id as the comment.
func write(entries []genEntry, comment string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: genTime}
		switch {
		case strings.HasSuffix(e.name, "/"):
			h.SetMode(fs.ModeDir | 0o755)
		case e.mode != 0:
			h.SetMode(e.mode)
		default:
			h.SetMode(0o644)
		}
		if e.stored || h.Mode()&fs.ModeSymlink != 0 {
			h.Method = zip.Store
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			panic(err) // the entries above are valid
		}
		fw.Write([]byte(e.data))
	}
	if comment != "" {
		w.SetComment(comment)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// gitComment is what git archive writes as the comment: the commit id.
const gitComment = "5d1f0c3e2b9a8d7c6b5a4e3f2d1c0b9a8e7f6d5c"

// Generated returns a small generated repository download with the
// structures of the real ones (see generated): every one of its
// GeneratedSkills skills must install.
func Generated() []byte { return write(generated(), gitComment) }

// GeneratedWithLinkInSkill returns Generated with one more entry: a
// symbolic link inside a skill (LinkInSkill), which must fail the import
// naming that entry.
func GeneratedWithLinkInSkill() []byte {
	return write(append(generated(), genEntry{name: LinkInSkill, data: "fields.md", mode: fs.ModeSymlink | 0o777}), gitComment)
}

// Extract writes the zip archive data below dir as unzip would: folders,
// files with their executable bits, symbolic links as links. It trusts the
// archive: use it on the downloads and generated archives only.
func Extract(data []byte, dir string) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for _, f := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			continue
		}
		if f.Mode().IsDir() || strings.HasSuffix(f.Name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		var b bytes.Buffer
		_, err = b.ReadFrom(rc)
		rc.Close()
		if err != nil {
			return err
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			err = os.Symlink(b.String(), p)
		} else {
			err = os.WriteFile(p, b.Bytes(), f.Mode().Perm()|0o600)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
