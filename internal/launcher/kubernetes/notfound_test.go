package kubernetes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/abbench/abbench/internal/launcher"
)

// Whether the run's namespace is there is kubectl's answer under
// --ignore-not-found, never the words of its error: a not-found said in
// other words is still gone (nothing to attach to), and a failure whose
// words name NotFound is an error, never taken for a namespace gone (a
// resume would then start the run twice).
func TestNotFoundIsKubectlsAnswerNotItsWords(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	spec := launcher.Spec{ID: "1-a", Dir: t.TempDir()}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("deleted", "")
	write("not-found", "Error from server: the namespace abbench-x is gone\n")
	if r, err := l.Attach(spec, "kubernetes-abbench-x"); r != nil || err != nil {
		t.Errorf("a namespace gone, said in other words: run %v, error %v; want nothing to attach to", r, err)
	}
	if err := os.Remove(filepath.Join(dir, "deleted")); err != nil {
		t.Fatal(err)
	}
	write("get-error", "Error from server (InternalError): admission webhook \"x\" said NotFound\n")
	if r, err := l.Attach(spec, "kubernetes-abbench-x"); err == nil {
		t.Errorf("a failed get whose words name NotFound: run %v and no error; want the error", r)
	}
}
