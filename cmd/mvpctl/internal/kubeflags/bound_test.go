package kubeflags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestKubeconfigFilesBounded(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	content := "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: 'https://127.0.0.1:1'}\n  name: c\ncontexts:\n- context: {cluster: c, user: u}\n  name: ctx\ncurrent-context: ctx\nusers:\n- name: u\n  user: {token: t}\n"
	if err := os.WriteFile(small, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	sized := func(name string, n int64) string { // a sparse file of n bytes
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(n); err != nil {
			t.Fatal(err)
		}
		return p
	}
	atBound, past := sized("at", MaxKubeconfig), sized("past", MaxKubeconfig+1)
	for _, tc := range []struct {
		name, explicit, env string
		want                string // "" when the files are read
	}{
		{"a kubeconfig", small, "", ""},
		{"/dev/null, kubectl's none", os.DevNull, "", ""},
		{"a file that does not exist is client-go's to report", filepath.Join(dir, "absent"), "", ""},
		{"at the bound", atBound, "", ""},
		{"past the bound", past, "", `file "` + past + `": 8388609 bytes, larger than 8 MiB: not read`},
		{"past the bound in $KUBECONFIG", "", small + string(filepath.ListSeparator) + past, `file "` + past + `": 8388609 bytes, larger than 8 MiB`},
		{"/dev/zero", "/dev/zero", "", `file "/dev/zero": a device, not a kubeconfig: not read`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			f := &Flags{KubeConfig: tc.explicit}
			_, err := f.ToRawKubeConfigLoader().RawConfig()
			if tc.want == "" {
				if err != nil && strings.Contains(err.Error(), "not read") {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RawConfig: %v, want %q", err, tc.want)
			}
			if _, err := f.ToRESTConfig(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ToRESTConfig: %v, want %q", err, tc.want)
			}
			if _, _, err := f.ToRawKubeConfigLoader().Namespace(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Namespace: %v, want %q", err, tc.want)
			}
			rules := clientcmd.NewDefaultClientConfigLoadingRules()
			rules.ExplicitPath = tc.explicit
			if err := CheckFiles(rules); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckFiles: %v, want %q", err, tc.want)
			}
		})
	}
}
