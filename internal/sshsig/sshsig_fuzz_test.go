package sshsig

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/fuzzseed"
)

// FuzzSignature parses any armored signature and checks it against any
// message. A refusal is an InvalidSignatureError; a parsed signature
// armors again to the same signature; one that verifies a message in its
// namespace verifies neither that message changed nor another namespace.
func FuzzSignature(f *testing.F) {
	bundles := "../../testdata/nccl/bundles/*.tar.gz"
	manifests := fuzzseed.Members(f, bundles, "manifest.json")
	for i, sig := range fuzzseed.Members(f, bundles, "manifest.json.sig") {
		f.Add(sig, manifests[i]) // ssh-keygen's signatures, with the manifests they sign
	}
	own, err := Sign(fuzzseed.Signer(f), ns, message)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(own, message)
	f.Add([]byte(armorBegin+"\nU1NIU0lH\n"+armorEnd), []byte{})
	f.Add(bytes.ReplaceAll(own, []byte("\n"), []byte("\r\n ")), message)
	f.Fuzz(func(t *testing.T, armored, msg []byte) {
		s, err := Parse(armored)
		if err != nil {
			var ie *InvalidSignatureError
			if !errors.As(err, &ie) {
				t.Fatalf("Parse returned %T: %v", err, err)
			}
			return
		}
		blob := ssh.Marshal(wireSig{[6]byte([]byte(magic)), sigVersion, string(s.PublicKey.Marshal()), s.Namespace, "", s.Hash, string(ssh.Marshal(s.Sig))})
		again, err := Parse(armor(blob))
		if err != nil || !bytes.Equal(again.PublicKey.Marshal(), s.PublicKey.Marshal()) || again.Namespace != s.Namespace ||
			again.Hash != s.Hash || !bytes.Equal(ssh.Marshal(again.Sig), ssh.Marshal(s.Sig)) {
			t.Fatalf("armored again, the signature reads %+v (%v), not %+v", again, err, s)
		}
		if s.Verify(s.Namespace, msg) != nil {
			return
		}
		if s.Verify(s.Namespace, append(bytes.Clone(msg), 'x')) == nil {
			t.Fatal("a signature verified its message and the message with a byte added")
		}
		if s.Verify(s.Namespace+"x", msg) == nil {
			t.Fatal("a signature verified in two namespaces")
		}
	})
}
