package output

import (
	"io"
	"strings"
)

// MarkdownTable writes a GitHub-flavoured markdown table, for PR comments. Pipes and newlines
// in cells are escaped so a cell can never break the table.
func MarkdownTable(w io.Writer, headers []string, rows [][]string) error {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + mdEscape(c) + " |")
		}
		b.WriteString("\n")
	}
	line(headers)
	sep := make([]string, len(headers))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", "<br>", "\r", "").Replace(s)
}
