//go:build !amd64

package evidence

// haveAVX2 is false off amd64: sets are searched with bytes.IndexByte.
const haveAVX2 = false

func indexNibble(s []byte, table *[16]byte) int { return indexNibbleGo(s, table) }
