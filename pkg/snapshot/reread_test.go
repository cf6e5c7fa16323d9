package snapshot

import (
	"bytes"
	"compress/gzip"
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
	for _, c := range letGoCases(t) {
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

// letGoCases are YAML snapshots the converter takes, valid or not, whose bytes are let go.
func letGoCases(t *testing.T) []struct {
	name    string
	data    []byte
	wantErr string
} {
	example, err := os.ReadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"valid", example, ""},
		{"unknown field", append(bytes.Clone(example), "bogus: 1\n"...), "bogus"},
		// Converted and decoded by the generated decoder, which finds the string not plain:
		// validation must then walk the strings, with no input bytes to look at instead.
		{"escape in a string", bytes.Replace(example, []byte("singularResource: apiservice"), []byte(`singularResource: "api\eservice"`), 1), "control character"},
		{"duplicate key", bytes.Replace(example, []byte("\nservers:\n"), []byte("\nservers: []\nservers:\n"), 1), "servers"},
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestLoadPipeLetsYAMLGo: a YAML snapshot read from a pipe is kept compressed, its bytes let go
// once converted to JSON, as a file's are; whatever the input, Load says what it says with the
// bytes held throughout: the same error, worded from the YAML, or the same validation.
func TestLoadPipeLetsYAMLGo(t *testing.T) {
	for _, c := range letGoCases(t) {
		t.Run(c.name, func(t *testing.T) {
			keepCompressedFrom = 1 << 62 // nothing kept: the bytes held throughout
			_, heldErr := Load(bytes.NewReader(c.data), "-")
			keepCompressedFrom = 0
			defer func() { keepCompressedFrom = collectAfter }()
			reread, settle := keptInput(c.data)
			if reread == nil || settle == nil {
				t.Fatal("a YAML input is not kept compressed")
			}
			if again, err := reread(); err != nil || !bytes.Equal(again, c.data) {
				t.Fatalf("read again: %d bytes, %v; want the %d bytes read", len(again), err, len(c.data))
			}
			_, keptErr := Load(bytes.NewReader(c.data), "-")
			if errText(keptErr) != errText(heldErr) {
				t.Fatalf("kept compressed: %v\nheld:              %v", keptErr, heldErr)
			}
			if c.wantErr == "" && keptErr != nil || c.wantErr != "" && !strings.Contains(errText(keptErr), c.wantErr) {
				t.Fatalf("error %v, want one saying %q", keptErr, c.wantErr)
			}
		})
	}
	// gzip is kept as it came; JSON is not kept (its bytes are not let go).
	example := letGoCases(t)[0].data
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(example)
	zw.Close()
	if reread, _ := keptInput(gz.Bytes()); reread == nil {
		t.Error("gzip input not kept")
	} else if again, _ := reread(); !bytes.Equal(again, gz.Bytes()) {
		t.Error("gzip input read again differs")
	}
	if reread, _ := keptInput([]byte(strings.Repeat(" ", 100) + `{"apiVersion":"x"}`)); reread != nil {
		t.Error("JSON input kept")
	}
}
