package snapshot

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/mvpctl/mvpctl/internal/textsafe"
)

// EscapeText rewrites every string of s that Validate would reject for its characters — a
// control character from a lease's hostname, an APIService's message, an aggregated
// server's group name, a kubeconfig context's name — as textsafe.Visible writes it (\x1b), and a
// server name's spaces and non-ASCII characters too, so that what a cluster states is
// recorded, as text, rather than stopping the inspection. It returns the field paths it
// rewrote, in document order (servers[0].identityLease.holderIdentity), for a warning.
func (s *Snapshot) EscapeText() []string {
	var changed []string
	for i := range s.Servers {
		srv := &s.Servers[i]
		for _, f := range []struct {
			v    *string
			name string
		}{{&srv.Name, "name"}, {&srv.Hostname, "hostname"}, {&srv.ID, "id"}} {
			if text := ServerNameText(*f.v); text != *f.v {
				*f.v = text
				changed = append(changed, fmt.Sprintf("servers[%d].%s", i, f.name))
			}
		}
	}
	escapeValue(reflect.ValueOf(s).Elem(), "", &changed)
	return changed
}

// ServerNameText is name with everything but printable ASCII written as a Go escape: how a
// snapshot records a server's name (a lease's hostname) that holds a control character, a
// space or a non-ASCII character. A name without any is returned as it is.
func ServerNameText(name string) string {
	if checkServerName(name, "") == nil {
		return name
	}
	var b strings.Builder
	for _, r := range textsafe.Visible(name) {
		switch {
		case r > ' ' && r < 0x7f:
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func escapeValue(v reflect.Value, path string, changed *[]string) {
	switch v.Kind() {
	case reflect.String:
		if _, bad := unsafeRune(v.String()); bad && v.CanSet() {
			v.SetString(textsafe.VisibleLines(v.String()))
			if _, still := unsafeRune(v.String()); still {
				v.SetString(textsafe.Visible(v.String()))
			}
			*changed = append(*changed, strings.TrimPrefix(path, "."))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			escapeValue(v.Elem(), path, changed)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			escapeValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i), changed)
		}
	case reflect.Map:
		escapeMap(v, path, changed)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name, skip := jsonName(t.Field(i))
			if skip {
				continue
			}
			field := path
			if name != "" {
				field += "." + name
			}
			escapeValue(v.Field(i), field, changed)
		}
	}
}

// escapeMap escapes a map's values in place and its string keys by moving their entries.
func escapeMap(v reflect.Value, path string, changed *[]string) {
	if v.IsNil() {
		return
	}
	keys := v.MapKeys()
	for _, k := range keys {
		elem := reflect.New(v.Type().Elem()).Elem()
		elem.Set(v.MapIndex(k))
		escapeValue(elem, fmt.Sprintf("%s[%q]", path, k), changed)
		if k.Kind() == reflect.String {
			if _, bad := unsafeRune(k.String()); bad {
				v.SetMapIndex(k, reflect.Value{})
				*changed = append(*changed, strings.TrimPrefix(path, ".")+" (a key)")
				k = reflect.ValueOf(textsafe.Visible(k.String())).Convert(k.Type())
			}
		}
		v.SetMapIndex(k, elem)
	}
}
