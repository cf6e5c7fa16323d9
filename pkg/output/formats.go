package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// TableWriter is a Writer whose result is, above all, one table: the rows -o csv prints (and
// -o table lays out, with whatever prose goes around them). o.Wide() asks for the wide
// columns.
type TableWriter interface {
	Table(o Options) (headers []string, rows [][]string)
}

// NameWriter is a Writer that names what it lists, one identifier per line (-o name): the GVR
// of a routing row, the server of an explanation.
type NameWriter interface {
	Names() []string
}

// TableFormats are the formats of a result printed as a table, after the default table:
// the wide columns, one name per line, JSONPath and CSV (kubectl's -o set).
var TableFormats = []Format{FormatWide, FormatName, FormatJSONPath, FormatCSV}

func writeNames(out io.Writer, names []string) error {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(Visible(n))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// writeCSV writes RFC 4180 CSV; empty cells stay empty (<none> is for people). Cells are
// Visible: a value cannot add a line.
func writeCSV(out io.Writer, headers []string, rows [][]string, noHeaders bool) error {
	w := csv.NewWriter(out)
	visible := make([][]string, len(rows))
	for i, r := range rows {
		visible[i] = make([]string, len(r))
		for j, c := range r {
			visible[i][j] = Visible(c)
		}
	}
	rows = visible
	if !noHeaders {
		if err := w.Write(headers); err != nil {
			return err
		}
	}
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	return w.Error()
}

// relaxed accepts a template without braces as kubectl get does (".rows[*].name" is
// "{.rows[*].name}").
func relaxed(tmpl string) string {
	t := strings.TrimSpace(tmpl)
	if strings.Contains(t, "{") {
		return tmpl
	}
	if !strings.HasPrefix(t, ".") {
		t = "." + t
	}
	return "{" + t + "}"
}

func checkJSONPath(tmpl string) error {
	if strings.TrimSpace(tmpl) == "" {
		return fmt.Errorf("empty template")
	}
	return jsonpath.New("output").Parse(relaxed(tmpl))
}

// writeJSONPath executes the template over the JSON form of doc (the document -o json
// prints), as kubectl does over an object: a field the document does not have is an error.
func writeJSONPath(out io.Writer, doc any, tmpl string) error {
	raw, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var data any
	if err := json.Unmarshal(raw, &data); err != nil {
		return err
	}
	jp := jsonpath.New("output")
	if err := jp.Parse(relaxed(tmpl)); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := jp.Execute(&b, data); err != nil {
		return fmt.Errorf("-o jsonpath=%s: %v", tmpl, err)
	}
	_, err = out.Write(b.Bytes())
	return err
}
