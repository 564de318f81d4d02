package routing

import "testing"

var namedSkills = []Skill{
	{ID: "pdf", Name: "pdf", Description: "Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging/splitting documents, and handling forms. When Claude needs to fill in a PDF form or programmatically process, generate, or analyze PDF documents at scale."},
	{ID: "docx", Name: "docx", Description: "Comprehensive document creation, editing, and analysis with support for tracked changes, comments, formatting preservation, and text extraction. When Claude needs to work with professional documents (.docx files) for: (1) Creating new documents, (2) Modifying or editing content, (3) Working with tracked changes, (4) Adding comments, or any other document tasks"},
	{ID: "xlsx", Name: "xlsx", Description: "Comprehensive spreadsheet creation, editing, and analysis with support for formulas, formatting, data analysis, and visualization. When Claude needs to work with spreadsheets (.xlsx, .xlsm, .csv, .tsv, etc) for creating new spreadsheets, reading or analyzing data"},
	{ID: "pptx", Name: "pptx", Description: "Presentation creation, editing, and analysis. When Claude needs to work with presentations (.pptx files) for creating new presentations, modifying or editing content, working with layouts, adding comments or speaker notes"},
	{ID: "webapp-testing", Name: "webapp-testing", Description: "Toolkit for interacting with and testing local web applications using Playwright. Supports verifying frontend functionality, debugging UI behavior, capturing browser screenshots, and viewing browser logs."},
	{ID: "systematic-debugging", Name: "systematic-debugging", Description: "Use when encountering any bug, test failure, or unexpected behavior, before proposing fixes"},
	{ID: "test-driven-development", Name: "test-driven-development", Description: "Use when implementing any feature or bugfix, before writing implementation code"},
	{ID: "canvas-design", Name: "canvas-design", Description: "Create beautiful visual art in .png and .pdf documents using design philosophy. You should use this skill when the user asks to create a poster, piece of art, design, or other static piece."},
	{ID: "algorithmic-art", Name: "algorithmic-art", Description: "Creating algorithmic art using p5.js with seeded randomness and interactive parameter exploration. Use this when users request creating art using code, generative art, algorithmic art, flow fields, or particle systems."},
	{ID: "debug", Name: "debug", Description: "Debug a failing program: reproduce the bug, read the logs and stack traces, bisect, and fix the root cause."},
	{ID: "test", Name: "test", Description: "Write and run unit tests for code: choose cases, mock dependencies, measure coverage."},
	{ID: "git", Name: "git", Description: "Work with git repositories: commits, branches, rebases, merges and resolving conflicts."},
	{ID: "review", Name: "review", Description: "Review code changes in a pull request for bugs, style and security issues and write review comments."},
	{ID: "brand-guidelines", Name: "brand-guidelines", Description: "Applies the brand colors and typography to any artifact: documents, slides, posters, web pages."},
	{ID: "social-post", Name: "social-post", Description: "Write a post for social media: LinkedIn, X and Mastodon, with hashtags."},
}

// Two skills the request both names, tied at Intent's cap: the tie is not
// broken for either (leadsUncapped), the person is asked.
func TestRouteTieBothNamed(t *testing.T) {
	res, err := NewIndex(namedSkills).Route("review the test coverage", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Decision != DecisionClose {
		t.Errorf("both skills named, tied: decision %s, primary %q; want close", res.Plan.Decision, res.Plan.Primary)
	}
}

// An "-ure" word that is not its root's act does not meet the root:
// posture is no post (ureNouns).
func TestRoutePostureIsNoPost(t *testing.T) {
	res, _ := NewIndex([]Skill{
		{ID: "docx", Name: "docx", Description: "Comprehensive document creation, editing, and analysis with support for tracked changes, comments, formatting preservation, and text extraction."},
		{ID: "social-post", Name: "social-post", Description: "Write a post for social media: LinkedIn, X and Mastodon, with hashtags."},
		{ID: "threejs", Name: "threejs", Description: "Build 3D scenes in the browser with three.js: meshes, lights, cameras, materials."},
	}).Route("check my posture from this photo", Options{})
	if res.Plan.Primary != "" {
		t.Errorf("posture: %s %q (stem %q = %q)", res.Plan.Decision, res.Plan.Primary, stem("posture"), stem("post"))
	}
}
