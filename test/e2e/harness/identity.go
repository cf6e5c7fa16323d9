package harness

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
)

// LeaseID returns the identity-lease name (= server ID) a kube-apiserver running with
// this hostname uses: "apiserver-" + lowercase(base32-nopad(SHA256(u16(len(h)) || h ||
// u16(len("kube-apiserver")) || "kube-apiserver")[:16])), with big-endian uint16
// length prefixes. This mirrors k8s.io/apiserver pkg/server/config.go NewConfig, which
// builds the hash input with cryptobyte.Builder.AddUint16LengthPrefixed.
func LeaseID(hostname string) string {
	var b []byte
	for _, s := range []string{hostname, "kube-apiserver"} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	h := sha256.Sum256(b)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:16]))
}
