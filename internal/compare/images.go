package compare

import (
	"github.com/abbench/abbench/internal/reason"
)

// images holds every container role to one image across the runs, as
// each run's provenance records it: two runs whose image name was pinned
// to two digests (rebuilt between them) ran two systems. The reason
// names both digests in full.
func (g *gate) images() {
	type ran struct{ image, digest, path, arm string }
	first := map[string]ran{}
	for _, run := range g.runs {
		prov := provenance(run)
		if prov == nil || run.Evidence == nil {
			continue
		}
		for _, c := range prov.Containers {
			this := ran{c.Image, c.Digest, run.Path, run.Evidence.Arm}
			f, ok := first[c.Role]
			if !ok {
				first[c.Role] = this
				continue
			}
			if f.digest != this.digest {
				rs := reason.New(reason.ImageMismatch, "role %s ran image %s as %s in run %s (arm %s), but image %s as %s in run %s (arm %s): two images, so the arms did not run one system",
					c.Role, this.image, this.digest, this.path, this.arm, f.image, f.digest, f.path, f.arm)
				rs.Arm = this.arm
				g.add(rs)
			}
		}
	}
}
