package mvp

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// docs/explanation.md defines the eras; its table must say what Eras says.
func TestErasDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/explanation.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Eras() {
		row := fmt.Sprintf("| `%s` | %s | %s |", e.Era, e.Versions, strings.ReplaceAll(e.Summary, "/apis", "`/apis`"))
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/explanation.md has no row %q", row)
		}
	}
}
