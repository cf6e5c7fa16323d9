package output

import (
	"io"
	"strings"
)

// MarkdownTable writes a GitHub-flavoured markdown table, for PR comments. A cell is one
// value: its pipes, newlines, control characters and '<' are escaped (mdEscape), so that a cell
// can never break the table nor start a line of its own, and HTML as MarkdownHTML says.
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

// mdEscape writes a cell's value on its line: a newline inside it is a control character like
// any other (Visible: \x0a), a pipe \|, and every '<' &lt;, so that not even a tag that
// MarkdownHTML passes (a <br> breaking the line in a rendered comment) acts in it.
func mdEscape(s string) string {
	return mdCell.Replace(Visible(s))
}

var mdCell = strings.NewReplacer("|", `\|`, "<", "&lt;")
