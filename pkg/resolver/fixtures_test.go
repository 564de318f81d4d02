package resolver

// fixture is a realistic set of installed skills, with English and Chinese
// triggers, used by the routing and tool tests.
func fixture() []Skill {
	return []Skill{
		{
			ID: "pdf-tools", Name: "pdf-tools", UserInvocable: true,
			Description:  "Extract text and tables from PDF files, fill PDF forms, and merge or split PDFs. Use when the user works with PDF documents.",
			Triggers:     []string{"pdf", "提取表格"},
			AntiTriggers: []string{"word document", "转成word"},
			AllowedTools: []string{"Read", "Bash(python3 scripts/*)"},
			CostHint:     "medium",
		},
		{
			ID: "docx", Name: "docx", UserInvocable: true,
			Description: "Create, edit and review Word documents (.docx) with tracked changes and comments.",
			Triggers:    []string{"word document", "docx", "word文档"},
			CostHint:    "medium",
		},
		{
			ID: "pptx", Name: "pptx", UserInvocable: true,
			Description: "Build and edit PowerPoint presentations: slides, layouts and speaker notes.",
			Triggers:    []string{"slides", "presentation", "幻灯片", "ppt"},
			CostHint:    "medium", ParallelSafe: true,
		},
		{
			ID: "xlsx", Name: "xlsx", UserInvocable: true,
			Description: "Read, analyse and write Excel spreadsheets with formulas and charts.",
			Triggers:    []string{"spreadsheet", "excel", "电子表格"},
			CostHint:    "medium", ParallelSafe: true,
		},
		{
			ID: "weather", Name: "weather", UserInvocable: true,
			Description:  "Look up the current weather and the forecast for a city.",
			WhenToUse:    "When the user asks whether it will rain, how hot it is, or about the forecast.",
			Triggers:     []string{"weather", "forecast", "天气"},
			AntiTriggers: []string{"weather api"},
			MCPDeps:      []string{"weather-mcp"},
			CostHint:     "low", ParallelSafe: true,
		},
		{
			ID: "translate", Name: "translate", UserInvocable: true,
			Description: "Translate text between languages, keeping its formatting.",
			Triggers:    []string{"translate", "翻译"},
			CostHint:    "low", ParallelSafe: true,
		},
		{
			ID: "git-commit", Name: "git-commit", UserInvocable: true,
			Description:  "Write a conventional commit message for the staged changes and commit them with git.",
			Triggers:     []string{"commit", "提交代码"},
			AllowedTools: []string{"Bash(git:*)", "Read"},
			ToolDeps:     []string{"Grep"},
			CostHint:     "low",
		},
		{
			ID: "code-review", Name: "code-review", UserInvocable: true,
			Description:  "Review a pull request or a diff for bugs, style problems and security issues.",
			Triggers:     []string{"review", "pull request", "代码审查"},
			AntiTriggers: []string{"review my essay"},
			CostHint:     "high",
		},
		{
			ID: "web-research", Name: "web-research", UserInvocable: true,
			Description:  "Search the web and summarise what the sources say, with citations.",
			WhenToUse:    "When the user asks about recent events or wants sources. 查一下最新消息。",
			Triggers:     []string{"search the web", "搜索", "查一下"},
			MCPDeps:      []string{"search-mcp"},
			AllowedTools: []string{"WebFetch", "WebSearch"},
			CostHint:     "medium", ParallelSafe: true,
		},
		{
			ID: "deploy", Name: "deploy", UserInvocable: true, DisableModelInvocation: true,
			Description: "Deploy the application to production.",
			Triggers:    []string{"deploy"},
			CostHint:    "high",
		},
		{
			ID: "usage-audit", Name: "usage-audit", UserInvocable: false,
			Description: "Audit how skills were used in this session.",
			Triggers:    []string{"audit"},
			CostHint:    "low",
		},
	}
}
