package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/internal/yamljson"
)

// TestLoadFileLetsYAMLGo: LoadFile lets a YAML file's bytes go once they are converted to JSON
// and reads the file again when the JSON path does not take them. Whatever the input, it says
// exactly what decoding the same bytes held throughout (Load from a reader) says: the same
// error, worded from the YAML, or the same validation.
func TestLoadFileLetsYAMLGo(t *testing.T) {
	example, err := os.ReadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"valid", example, ""},
		{"unknown field", append(bytes.Clone(example), "bogus: 1\n"...), "bogus"},
		// Converted and decoded by the generated decoder, which finds the string not plain:
		// validation must then walk the strings, with no input bytes to look at instead.
		{"escape in a string", bytes.Replace(example, []byte("singularResource: apiservice"), []byte(`singularResource: "api\eservice"`), 1), "control character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := yamljson.Convert(c.data); !ok {
				t.Fatal("the converter declines the input: the test does not reach what it is about")
			}
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, fileErr := LoadFile(path)
			_, readerErr := Load(bytes.NewReader(c.data), path)
			if errText(fileErr) != errText(readerErr) {
				t.Fatalf("LoadFile: %v\nLoad:     %v", fileErr, readerErr)
			}
			if c.wantErr == "" && fileErr != nil || c.wantErr != "" && !strings.Contains(errText(fileErr), c.wantErr) {
				t.Fatalf("error %v, want one saying %q", fileErr, c.wantErr)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
