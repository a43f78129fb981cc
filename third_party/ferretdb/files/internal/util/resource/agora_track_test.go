// Tests of Agora's Track and Untrack (agora_track.go, patch 0003).

package resource

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type agoraTracked struct {
	token *Token
}

// TestAgoraTrackWithoutProfile: tracking keeps no pprof profile (the point of the patch), and an
// object untracked before it is collected does not panic.
func TestAgoraTrackWithoutProfile(t *testing.T) {
	for i := 0; i < 100; i++ {
		obj := &agoraTracked{token: NewToken()}
		Track(obj, obj.token)
		Untrack(obj, obj.token)
		Untrack(obj, obj.token) // safe to call twice, as FerretDB's is
	}

	assert.Nil(t, pprof.Lookup(profileName(&agoraTracked{})))

	runtime.GC()
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // let finalizers, if any were left, run (and panic)
}

// TestAgoraTrackChecksArguments: the argument checks FerretDB's Track makes are kept.
func TestAgoraTrackChecksArguments(t *testing.T) {
	t.Parallel()

	obj := &agoraTracked{token: NewToken()}

	assert.Panics(t, func() { Track(obj, NewToken()) }, "a token that is not the object's")
	assert.Panics(t, func() { Track(*obj, obj.token) }, "not a pointer")
	assert.Panics(t, func() { Untrack(obj, NewToken()) }, "a token that is not the object's")

	s := "not a struct"
	assert.Panics(t, func() { Track(&s, obj.token) }, "not a pointer to a struct")
}

// TestAgoraTrackLeakCheck: an object collected while still tracked panics, as with FerretDB's
// Track. The panic ends the process, so the test runs itself as a child process to see it.
func TestAgoraTrackLeakCheck(t *testing.T) {
	if os.Getenv("AGORA_TRACK_LEAK") == "1" {
		func() {
			obj := &agoraTracked{token: NewToken()}
			Track(obj, obj.token)
		}()

		for i := 0; i < 50; i++ {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}

		return // not reached when the leak check works
	}

	t.Parallel()

	cmd := exec.Command(os.Args[0], "-test.run=^TestAgoraTrackLeakCheck$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGORA_TRACK_LEAK=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Contains(t, string(out), "*resource.agoraTracked has not been finalized")
}
