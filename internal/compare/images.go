package compare

import (
	"strings"

	"github.com/abbench/abbench/internal/attachprobe"
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

// attachedImages holds each attached Deployment to one set of image
// digests across an arm's runs, as each run's evidence recorded its pods:
// a Deployment whose pods were rolled to another image between two runs
// ran two systems in one arm.
func (g *gate) attachedImages() {
	type ran struct{ images, path string }
	first := map[string]ran{}
	for _, run := range g.runs {
		e := run.Evidence
		if e == nil {
			continue
		}
		for _, a := range e.Attached {
			if len(a.Pods) == 0 {
				continue
			}
			key := e.Arm + "\x00" + a.Name
			this := ran{strings.Join(attachprobe.ImagesOf(a.Pods), ", "), run.Path}
			f, ok := first[key]
			if !ok {
				first[key] = this
				continue
			}
			if f.images != this.images {
				rs := reason.New(reason.ImageMismatch, "attached server %s of arm %s ran images %s in run %s, but %s in run %s: its deployment changed between the arm's runs",
					a.Name, e.Arm, this.images, this.path, f.images, f.path)
				rs.Arm = e.Arm
				g.add(rs)
			}
		}
	}
}
