package snapshot

import (
	"bytes"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

func TestValidateVersions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Snapshot)
		want   string // "" = valid
	}{
		{"1.x", func(*Snapshot) {}, ""},
		{"newer minor than mvpctl knows", func(s *Snapshot) { s.Servers[0].Version = "v1.99.0" }, ""},
		{"APIServices", func(s *Snapshot) {
			s.Cluster.APIServices = []APIService{{Name: "v1.apps", Group: "apps", Version: "v1"},
				{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", Service: &ServiceReference{Namespace: "kube-system", Name: "metrics-server"}}}
		}, ""},
		{"APIService without version", func(s *Snapshot) { s.Cluster.APIServices = []APIService{{Name: "x", Group: "g"}} },
			"cluster.apiServices[0]: name and version must be set"},
		{"APIService service without name", func(s *Snapshot) {
			s.Cluster.APIServices = []APIService{{Name: "v1.g", Group: "g", Version: "v1", Service: &ServiceReference{Namespace: "ns"}}}
		}, "cluster.apiServices[0] (v1.g).service: namespace and name must be set"},
		{"CRDs", func(s *Snapshot) { s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{crdWidgets()} }, ""},
		{"CRD without plural", func(s *Snapshot) {
			c := crdWidgets()
			c.Plural = ""
			s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{c}
		}, "cluster.customResourceDefinitions[0]: group, kind and plural must be set"},
		{"CRD without versions", func(s *Snapshot) {
			c := crdWidgets()
			c.Versions = nil
			s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{c}
		}, "cluster.customResourceDefinitions[0] (widgets.example.com).versions: 0, want 1 to 64"},
		{"CRD version without name", func(s *Snapshot) {
			c := crdWidgets()
			c.Versions[1].Name = ""
			s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{c}
		}, "cluster.customResourceDefinitions[0] (widgets.example.com).versions[1].name: must be set"},
		{"deprecation warning of 257 characters (cut with …)", func(s *Snapshot) {
			c := crdWidgets()
			w := strings.Repeat("é", 256) + "…"
			c.Versions[1].DeprecationWarning = &w
			s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{c}
		}, ""},
		{"deprecation warning of 258 characters", func(s *Snapshot) {
			c := crdWidgets()
			w := strings.Repeat("w", 258)
			c.Versions[1].DeprecationWarning = &w
			s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{c}
		}, "cluster.customResourceDefinitions[0] (widgets.example.com).versions[1].deprecationWarning: 258 characters, at most 256"},
		{"identity leases not listed", func(s *Snapshot) { s.Cluster.IdentityLeases = &IdentityLeases{Error: "403 Forbidden"} }, ""},
		{"identity leases listed, with an error", func(s *Snapshot) { s.Cluster.IdentityLeases = &IdentityLeases{Listed: true, Error: "403 Forbidden"} },
			`cluster.identityLeases: listed, with an error ("403 Forbidden"): an error says they were not listed`},
		{"build suffix", func(s *Snapshot) { s.Servers[0].Version = "v1.36.3-gke.100" }, ""},
		{"emulated version", func(s *Snapshot) { s.Servers[0].EmulatedVersion = "1.35" }, ""},
		{"unreachable, version unknown", func(s *Snapshot) { s.Servers[1].Version = "" }, ""},
		{"major 2", func(s *Snapshot) { s.Servers[0].Version = "v2.0.0" },
			`servers[0] (a).version: "v2.0.0" is Kubernetes 2.x; mvpctl knows Kubernetes 1.x, the only major version there has been`},
		{"major 99", func(s *Snapshot) { s.Servers[0].Version = "v99.999.0" }, `servers[0] (a).version: "v99.999.0" is Kubernetes 99.x`},
		{"major 0", func(s *Snapshot) { s.Servers[0].Version = "v0.36.0" }, `servers[0] (a).version: "v0.36.0" is Kubernetes 0.x`},
		{"unreachable server's major checked too", func(s *Snapshot) { s.Servers[1].Version = "v2.1.0" }, `servers[1] (b).version: "v2.1.0" is Kubernetes 2.x`},
		{"unparsable version", func(s *Snapshot) { s.Servers[0].Version = "latest" },
			`servers[0] (a).version: "latest" is not a Kubernetes version (want e.g. v1.36.3)`},
		{"unparsable emulatedVersion", func(s *Snapshot) { s.Servers[0].EmulatedVersion = "banana" },
			`servers[0] (a).emulatedVersion: "banana" is not a Kubernetes version (want e.g. v1.36.3)`},
		{"emulatedVersion major 2", func(s *Snapshot) { s.Servers[0].EmulatedVersion = "2.0" },
			`servers[0] (a).emulatedVersion: "2.0" is Kubernetes 2.x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := valid()
			tc.mutate(s)
			err := s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error: %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("error = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestValidateText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Snapshot)
		want   string // "" = valid
	}{
		{"hostname", func(s *Snapshot) { s.Servers[0].Name = "ip-10-0-0-1.ec2.internal" }, ""},
		{"host:port", func(s *Snapshot) { s.Servers[0].Name = "[fd00::1]:6443" }, ""},
		{"discover's fallback name", func(s *Snapshot) { s.Servers[0].Name = "<unknown>" }, ""},
		{"free text with tabs, newlines, non-ASCII", func(s *Snapshot) { s.Servers[1].Error = "dial tcp:\n\tconnexion refusée — réessayer" }, ""},

		{"escape sequence in a name", func(s *Snapshot) { s.Servers[0].Name = "kas\x1b]0;pwned\x07" },
			`servers[0].name: "kas\x1b]0;pwned\a" holds the control character '\x1b': a server name is printable ASCII without spaces (a hostname, host:port or lease name)`},
		{"screen clear in a name", func(s *Snapshot) { s.Servers[1].Name = "b\x1b[2J" }, `servers[1].name: "b\x1b[2J" holds the control character '\x1b'`},
		{"C1 CSI in a name", func(s *Snapshot) { s.Servers[0].Name = "a\u009b2J" }, `servers[0].name: "a\u009b2J" holds the control character '\u009b'`},
		{"space in a name", func(s *Snapshot) { s.Servers[0].Name = "kas a" }, `servers[0].name: "kas a" holds a space`},
		{"non-ASCII name", func(s *Snapshot) { s.Servers[0].Name = "kаs-a" }, `servers[0].name: "kаs-a" holds the non-ASCII character 'а'`},
		{"right-to-left override in a name", func(s *Snapshot) { s.Servers[0].Name = "a\u202eb" }, `servers[0].name: "a\u202eb" holds the text-direction control '\u202e'`},
		{"invalid UTF-8 in a name", func(s *Snapshot) { s.Servers[0].Name = "a\xffb" }, `servers[0].name: "a\xffb" holds bytes that are not UTF-8`},

		{"escape in an error", func(s *Snapshot) { s.Servers[1].Error = "refused\x1b[2J" },
			`servers[1].error: "refused\x1b[2J" holds the control character '\x1b': a snapshot mvpctl wrote has none (one that reached a terminal could retitle it or clear the screen)`},
		{"escape in evidence", func(s *Snapshot) { s.Servers[0].PeerProxy.Evidence = []string{"ok", "\x1b]0;x\x07"} },
			`servers[0].peerProxy.evidence[1]: "\x1b]0;x\a" holds the control character '\x1b'`},
		{"escape in a resource", func(s *Snapshot) { s.Servers[0].Resources[0].Kind = "Pod\x1b[1m" },
			`servers[0].resources[0].kind: "Pod\x1b[1m" holds the control character '\x1b'`},
		{"escape in a discovery document", func(s *Snapshot) {
			g := apidiscoveryv2.APIGroupDiscovery{}
			g.Name = "apps\x1bc"
			s.Servers[0].APIs = &DiscoveryDocument{Items: []apidiscoveryv2.APIGroupDiscovery{g}}
		}, `servers[0].apis.items[0].metadata.name: "apps\x1bc" holds the control character '\x1b'`},
		{"carriage return in the source", func(s *Snapshot) { s.Source = "ctx\rfake" }, `source: "ctx\rfake" holds the control character '\r'`},
		{"escape in a map key", func(s *Snapshot) { s.Servers[0].PeerProxy.PeerDiscoverySyncErrors = map[string]float64{"x\x1b": 1} },
			`servers[0].peerProxy.peerDiscoverySyncErrors (a key): "x\x1b" holds the control character '\x1b'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := valid()
			tc.mutate(s)
			err := s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error: %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("error = %v\nwant %s", err, tc.want)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\x1b\x07\r\u009b\u202e") {
				t.Errorf("the error itself holds the raw character: %q", err)
			}
		})
	}
}

// A snapshot with an escape sequence in a JSON \u escape or a YAML "\e" is rejected on load.
func TestDecodeRejectsEscapes(t *testing.T) {
	for _, in := range []string{
		`{"apiVersion":"mvpctl.io/v1alpha1","kind":"Snapshot","servers":[{"name":"a\u001b[2J","version":"v1.36.3","reachable":true}]}`,
		"apiVersion: mvpctl.io/v1alpha1\nkind: Snapshot\nservers:\n- name: \"a\\e[2J\"\n  version: v1.36.3\n  reachable: true\n",
		// A YAML tag makes text of any bytes without a backslash: base64 of "a\x1b[2J".
		"apiVersion: mvpctl.io/v1alpha1\nkind: Snapshot\nservers:\n- name: !!binary YRtbMko=\n  version: v1.36.3\n  reachable: true\n",
	} {
		if _, err := Decode([]byte(in)); err == nil || !strings.Contains(err.Error(), `servers[0].name: "a\x1b[2J" holds the control character '\x1b'`) {
			t.Errorf("Decode(%q) = %v", in, err)
		}
	}
	// JSON the generated decoder takes, whose text is not plain ASCII, written as it is or
	// escaped: the walk over every string still runs (fastDecode's plainText is false).
	for _, text := range []string{"a\x7fb", `a\u007fb`, "a\u202eb", `a\u202eb`, `a\u001b[2J`} {
		in := `{"apiVersion":"mvpctl.io/v1alpha2","kind":"Snapshot","servers":[{"name":"a","version":"v1.36.3","reachable":true},{"name":"b","reachable":false,"error":"` + text + `"}]}`
		if _, err := Decode([]byte(in)); err == nil || !strings.Contains(err.Error(), "servers[1].error: ") {
			t.Errorf("Decode(%q) = %v", in, err)
		}
	}
}

// plainInput decides whether Decode may skip the walk over every string (checkText): only for
// input that cannot decode to anything but printable ASCII, tabs and newlines. FuzzDecode
// checks the consequence (a decoded snapshot passes the full Validate).
func TestPlainInput(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"apiVersion: mvpctl.io/v1alpha2\nkind: Snapshot\n", true},
		{"{\"a\": \"b c\",\n\t\"d\": [1, 2.5, true, null]}", true},
		{"~`@#$%^&*()_+-={}[]|;:'<>,.?/ 0123456789 AZaz", true},
		{`{"a": "b\u001b"}`, false},    // a JSON escape
		{"name: \"a\\e\"", false},      // a YAML escape
		{"name: !!binary YRtb", false}, // a YAML tag
		{"name: caf\u00e9", false},     // non-ASCII
		{"name: a\x7fb", false},        // DEL
		{"name: a\rb", false},          // CR
		{"name: a\x1bb", false},        // ESC
		{"name: a\x00b", false},        // NUL
	} {
		// Every position relative to the eight-byte words the scan reads.
		for pad := 0; pad < 9; pad++ {
			in := strings.Repeat("x", pad) + tc.in + strings.Repeat("y", 8-pad)
			if got := plainInput([]byte(in)); got != tc.want {
				t.Errorf("plainInput(%q) = %t, want %t", in, got, tc.want)
			}
		}
	}
}

// TestPlainWords: every byte value at every position of a word, alone and next to the other
// kinds of byte (a carry or borrow between bytes would show), and a large input, checked in
// chunks, with its one bad byte at the start, in the middle, at the end and in the tail.
func TestPlainWords(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			for _, fill := range []byte{' ', 'x', '\t', '\n', '~', 0, 0xff, '!'} {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(c)
				want := true
				for _, b := range w {
					want = want && plainByte(b)
				}
				if got := plainWords(w); got != want {
					t.Fatalf("plainWords(%q) = %t, want %t", w, got, want)
				}
			}
		}
	}
	big := bytes.Repeat([]byte("{\"a\": \"b c\",\n\t\"d\": [1, 2.5]}\n"), 1<<18) // 8 MB
	big = append(big, "abc"...)                                                  // a tail
	if !plainInput(big) {
		t.Fatal("plainInput rejects a large plain input")
	}
	for _, at := range []int{0, len(big) / 2, len(big) - 9, len(big) - 4, len(big) - 1} {
		old := big[at]
		big[at] = 0x1b
		if plainInput(big) {
			t.Errorf("plainInput takes an ESC at %d of %d bytes", at, len(big))
		}
		big[at] = old
	}
}

// plainByte is plainWords' rule for one byte, written byte by byte for TestPlainWords.
func plainByte(c byte) bool {
	return (c >= 0x20 || c == '\t' || c == '\n') && c < 0x7f && c != '\\' && c != '!'
}

// crdWidgets is a CRD of three versions: v1 served and stored, v1beta1 served and deprecated
// with a warning, v1alpha1 no longer served.
func crdWidgets() CustomResourceDefinition {
	warning := "example.com/v1beta1 Widget is deprecated; use v1"
	return CustomResourceDefinition{Group: "example.com", Kind: "Widget", Plural: "widgets", Versions: []CustomResourceDefinitionVersion{
		{Name: "v1", Served: true, Storage: true},
		{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: &warning},
		{Name: "v1alpha1"},
	}}
}
