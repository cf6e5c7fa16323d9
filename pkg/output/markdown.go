package output

import (
	"io"
	"strings"
)

// MarkdownTable writes a GitHub-flavoured markdown table, for PR comments. Pipes, newlines
// and control characters in cells are escaped so a cell can never break the table, and HTML
// as MarkdownHTML says.
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
	_, err := io.WriteString(w, MarkdownHTML(b.String()))
	return err
}

func mdEscape(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(Visible(strings.TrimSuffix(l, "\r")), "|", `\|`)
	}
	return strings.Join(lines, "<br>")
}
