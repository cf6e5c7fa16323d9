package discover

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// discoverRT is Discover, and checks that the snapshot taken survives being written in the
// current format (mvpctl.io/v1alpha2, which leaves out the lists its documents give) and read
// back: the servers and cluster read equal those taken.
func discoverRT(t testing.TB, ctx context.Context, o Options) (*snapshot.Snapshot, error) {
	t.Helper()
	snap, err := Discover(ctx, o)
	if err == nil {
		roundTrip(t, snap)
	}
	return snap, err
}

func roundTrip(t testing.TB, snap *snapshot.Snapshot) {
	t.Helper()
	for _, asJSON := range []bool{true, false} {
		data, err := snap.Marshal(asJSON)
		if err != nil {
			t.Fatal(err)
		}
		got, err := snapshot.Decode(data)
		if err != nil {
			t.Fatalf("the snapshot written (JSON %t) does not load: %v\n%s", asJSON, err, data)
		}
		if !reflect.DeepEqual(got.Cluster, snap.Cluster) {
			t.Errorf("JSON %t: cluster read back\n%+v\nwant\n%+v", asJSON, got.Cluster, snap.Cluster)
		}
		if len(got.Servers) != len(snap.Servers) {
			t.Fatalf("JSON %t: %d servers read back, want %d", asJSON, len(got.Servers), len(snap.Servers))
		}
		for i := range snap.Servers {
			if g, w := got.Servers[i], snap.Servers[i]; !reflect.DeepEqual(g, w) {
				t.Errorf("JSON %t: server %s read back differs:\n%+v\nwant\n%+v", asJSON, w.Name, g, w)
			}
		}
		if asJSON {
			t.Logf("snapshot of %d servers: v1alpha1 %d bytes, v1alpha2 %d bytes (JSON, indented)", len(snap.Servers), len(marshalV1Alpha1(t, snap)), len(data))
		}
	}
}

// marshalV1Alpha1 writes s as mvpctl.io/v1alpha1 did: every list written out, without the
// fields v1alpha1 does not have (coreAPI, cluster.listsRead).
func marshalV1Alpha1(t testing.TB, s *snapshot.Snapshot) []byte {
	t.Helper()
	old := *s
	old.APIVersion = snapshot.APIVersionV1Alpha1
	old.Cluster.ListsRead = nil
	old.Servers = append([]snapshot.Server(nil), s.Servers...)
	for i := range old.Servers {
		old.Servers[i].CoreAPI = nil
	}
	b, err := json.MarshalIndent(&old, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
