package mvp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestCommandLineFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    []snapshot.Flag
		wantErr string
	}{
		{name: "kubeadm's own flags: none of the proxy's but the address", args: []string{"--advertise-address=10.0.0.1", "--secure-port=6443", "--authorization-mode=Node,RBAC", "--allow-privileged=true"},
			want: []snapshot.Flag{{Name: "advertise-address", Value: "10.0.0.1"}, {Name: "secure-port", Value: "6443"}}},
		{name: "the last value of a plain flag wins", args: []string{"--peer-ca-file=/a", "--peer-ca-file=/b"}, want: []snapshot.Flag{{Name: "peer-ca-file", Value: "/b"}}},
		{name: "map flags merge, a key's last value wins", args: []string{"--feature-gates=B=true,UnknownVersionInteroperabilityProxy=false", "--feature-gates=UnknownVersionInteroperabilityProxy=true", "--runtime-config=batch/v1=false", "--runtime-config", "api/all"},
			want: []snapshot.Flag{{Name: "feature-gates", Value: "B=true,UnknownVersionInteroperabilityProxy=true"}, {Name: "runtime-config", Value: "api/all=true,batch/v1=false"}}},
		{name: "a value as the next word; a boolean flag before another flag", args: []string{"--profiling", "--peer-advertise-ip", "10.0.0.1", "--peer-advertise-port", "6443"},
			want: []snapshot.Flag{{Name: "peer-advertise-ip", Value: "10.0.0.1"}, {Name: "peer-advertise-port", Value: "6443"}}},
		{name: "a feature gate that is not a boolean", args: []string{"--feature-gates=UnknownVersionInteroperabilityProxy=on"}, wantErr: `--feature-gates "UnknownVersionInteroperabilityProxy=on": "on" is not true or false`},
		{name: "a feature gate without a value", args: []string{"--feature-gates=UnknownVersionInteroperabilityProxy"}, wantErr: `is not NAME=true|false`},
		{name: "a runtime-config kube-apiserver refuses", args: []string{"--runtime-config=batch/v1=yes-ish"}, wantErr: `runtime-config "batch/v1=yes-ish"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CommandLineFlags(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v %v, want %v", got, err, tc.want)
			}
		})
	}
}

// TestStatedConfiguration: what the snapshot observed wins; then what the installer states
// (no --feature-gates entry states the version's default, no --peer-ca-file states no filter);
// only without either is the default assumed.
func TestStatedConfiguration(t *testing.T) {
	stated := func(flags ...snapshot.Flag) *snapshot.StatedFlags {
		return &snapshot.StatedFlags{Source: "manifest m.yaml", Flags: flags}
	}
	gateOff := snapshot.Flag{Name: FlagFeatureGates, Value: GateName + "=false"}
	gateOn := snapshot.Flag{Name: FlagFeatureGates, Value: GateName + "=true"}
	ca := snapshot.Flag{Name: FlagPeerCAFile, Value: "/etc/kubernetes/pki/ca.crt"}
	for _, tc := range []struct {
		name                               string
		version                            string
		pp                                 snapshot.PeerProxy
		stated                             *snapshot.StatedFlags
		gate, gateAssumed, filter, fAssume bool
		source                             string
	}{
		{name: "nothing known: the 1.36 default, assumed", version: "v1.36.3", gate: true, gateAssumed: true, fAssume: true},
		{name: "kubeadm-shaped 1.36: gate on by default, no filter, stated", version: "v1.36.3", stated: stated(), gate: true, source: "manifest m.yaml"},
		{name: "kubeadm-shaped 1.35: gate off by default, stated", version: "v1.35.4", stated: stated(), source: "manifest m.yaml"},
		{name: "1.35 with the gate and a peer CA stated", version: "v1.35.4", stated: stated(gateOn, ca), gate: true, filter: true, source: "manifest m.yaml"},
		{name: "gate stated off: no filter whatever the CA", version: "v1.37.1", stated: stated(gateOff, ca), source: "manifest m.yaml"},
		{name: "observed wins over stated", version: "v1.36.3", pp: snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true)}, stated: stated(gateOff), gate: true, filter: true},
		{name: "a malformed statement is not used", version: "v1.36.3", stated: stated(snapshot.Flag{Name: FlagFeatureGates, Value: "x"}), gate: true, gateAssumed: true, fAssume: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &snapshot.Server{Name: "a", Version: tc.version, PeerProxy: tc.pp, Stated: tc.stated, Reachable: true}
			gate, gateAssumed := GateOn(srv)
			filter, fAssumed := FilterInstalled(srv)
			if gate != tc.gate || gateAssumed != tc.gateAssumed || filter != tc.filter || fAssumed != tc.fAssume {
				t.Errorf("gate %t (assumed %t), filter %t (assumed %t); want %t (%t), %t (%t)", gate, gateAssumed, filter, fAssumed, tc.gate, tc.gateAssumed, tc.filter, tc.fAssume)
			}
			if got := StatedSource(srv); got != tc.source {
				t.Errorf("stated source %q, want %q", got, tc.source)
			}
		})
	}
}

func TestPublishedPeerAddress(t *testing.T) {
	sp := StatedProxy{AdvertiseAddress: "fd00::1", SecurePort: "6443"}
	for _, tc := range []struct {
		version string
		sp      StatedProxy
		want    string
		known   bool
	}{
		{"v1.36.3", sp, "[fd00::1]:6443", true},
		{"v1.33.1", sp, "", false}, // before the source read
		{"v1.36.3", StatedProxy{AdvertiseAddress: "10.0.0.1"}, "", false},
	} {
		v, _ := snapshot.ParseVersion(tc.version)
		if got, known := tc.sp.PublishedPeerAddress(v); got != tc.want || known != tc.known {
			t.Errorf("%s %+v: %q %t, want %q %t", tc.version, tc.sp, got, known, tc.want, tc.known)
		}
	}
}
