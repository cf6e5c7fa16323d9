package mvp

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
)

// ServerID returns the identity a kube-apiserver running on hostname has: the name of its
// identity lease in kube-system, "apiserver-" + lowercase(base32-nopad(SHA256(u16(len(h)) ||
// h || u16(len("kube-apiserver")) || "kube-apiserver")[:16])) with big-endian length
// prefixes, as k8s.io/apiserver pkg/server/config.go builds it. Two apiservers on one hostname
// share it, and then never see each other as peers.
func ServerID(hostname string) string {
	var b []byte
	for _, s := range []string{hostname, "kube-apiserver"} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	h := sha256.Sum256(b)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:16]))
}
