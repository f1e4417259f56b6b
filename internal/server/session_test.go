package server

import (
	"testing"

	"github.com/goeq/goeq/internal/control"
)

// Only changes of the application's data and of the peers travel, per
// session: a node that rejoins (a new session of the same node) gets both
// again, even when they did not change.
func TestRejoinedSessionGetsDataAndPeersAgain(t *testing.T) {
	nc := &nodeConn{}
	peers := map[string]string{"render1": "10.0.0.1:7000"}
	data := []byte("camera 1")
	send := func() *control.FrameWork {
		fw := &control.FrameWork{}
		nc.addPeers(fw, peers, 1)
		nc.addData(fw, data)
		return fw
	}
	if fw := send(); string(fw.Data) != "camera 1" || fw.DataKept || fw.Peers == nil {
		t.Fatalf("first frame: %+v", fw)
	}
	if fw := send(); fw.Data != nil || !fw.DataKept || fw.Peers != nil {
		t.Fatalf("unchanged data or peers sent again: %+v", fw)
	}
	data = []byte("camera 2")
	if fw := send(); string(fw.Data) != "camera 2" || fw.DataKept {
		t.Fatalf("changed data not sent: %+v", fw)
	}
	nc.newSession()
	if fw := send(); string(fw.Data) != "camera 2" || fw.DataKept || fw.Peers == nil {
		t.Fatalf("a rejoined session was not sent the unchanged data and peers: %+v", fw)
	}
}
