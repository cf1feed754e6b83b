package records

import (
	"bytes"
	"maps"
	"slices"
	"strings"
)

// fioJob is one job of fio's --output-format=json output (fio writes
// every option value as a string).
type fioJob struct {
	Name    string            `json:"jobname"`
	Group   int               `json:"groupid"`
	Error   int               `json:"error"`
	Options map[string]string `json:"job options"`
	Read    *fioDirection     `json:"read"`
	Write   *fioDirection     `json:"write"`
	Trim    *fioDirection     `json:"trim"`
}

// fioDirection is what a job did in one direction: bytes, bandwidth
// (KiB/s), IOPS, runtime (ms) and total latency (ns).
type fioDirection struct {
	IOBytes  float64 `json:"io_bytes"`
	BW       float64 `json:"bw"`
	IOPS     float64 `json:"iops"`
	Runtime  float64 `json:"runtime"`
	TotalIOs float64 `json:"total_ios"`
	Latency  *struct {
		Mean float64 `json:"mean"`
	} `json:"lat_ns"`
}

func (j fioJob) directions() map[string]*fioDirection {
	return map[string]*fioDirection{"read": j.Read, "write": j.Write, "trim": j.Trim}
}

// fioPercentiles is the key of fio's latency percentiles, where fio 3.1
// writes each unused slot of its list as "0.00": 0, the key repeated;
// abbench reads no percentile, so no reader's choice among them matters.
const fioPercentiles = "percentile"

// fioSignal is the line fio prints when a signal stops it; what it wrote
// then is the part of the run done so far.
const fioSignal = "fio: terminating on signal"

// parseFio reads fio's --output-format=json output (lines fio printed
// before the JSON, such as its signal line, are read too). Its jobs are
// the units of work: a job with a non-zero error failed, and so did a
// time_based job that ran well short of its runtime. Spec.Result names
// the job; the clones numjobs makes of one job share its name, group and
// options, and are read as one job: their IOPS and bandwidths added.
func (r *Record) parseFio(data []byte, spec Spec) {
	r.Unit = UnitJobs
	body := data
	if at := bytes.Index(data, []byte("\n{")); at >= 0 && data[0] != '{' {
		// The lines before the JSON are blanked, not cut, so that an
		// offset a problem names is the file's.
		body = slices.Concat(bytes.Repeat([]byte{' '}, at+1), data[at+1:])
	}
	jobs, ok := decodeList[fioJob](r, body, "jobs", "fio --output-format=json output", fioPercentiles)
	if !ok {
		return
	}
	var global struct {
		Options map[string]string `json:"global options"`
	}
	if err := decodeJSON(body, &global, fioPercentiles); err != nil {
		r.unreadable(`"global options" does not parse as fio's: %v`, err)
		return
	}
	var signals []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, fioSignal) {
			signals = append(signals, line)
		}
	}
	if len(signals) > 0 {
		r.verdict(false, signals...)
	}
	names, clones := fioClones(jobs)
	i, ok := r.choose(names, spec.Result)
	if !ok {
		return
	}
	r.fioCounts(jobs, global.Options)
	r.fioMetrics(clones[i])
}

// fioClones groups the jobs into the clones of each job definition: the
// same name, group and options. Two definitions of one name are two
// results of that name (choose calls the name ambiguous).
func fioClones(jobs []fioJob) ([]string, [][]fioJob) {
	var names []string
	var clones [][]fioJob
	for _, j := range jobs {
		at := slices.IndexFunc(clones, func(c []fioJob) bool {
			return c[0].Name == j.Name && c[0].Group == j.Group && maps.Equal(c[0].Options, j.Options)
		})
		if at < 0 {
			names, clones = append(names, j.Name), append(clones, nil)
			at = len(clones) - 1
		}
		clones[at] = append(clones[at], j)
	}
	return names, clones
}

// fioCounts counts every job of the run, not only the named one's: jobs
// of one run share the device, so a job that failed changed the load the
// named one ran under.
func (r *Record) fioCounts(jobs []fioJob, global map[string]string) {
	failed := 0
	for n, j := range jobs {
		bad := j.Error != 0
		if bad {
			r.problem("job %q (job %d of %d) ended with error %d", j.Name, n+1, len(jobs), j.Error)
		}
		if r.fioStoppedEarly(j, n, len(jobs), global) {
			bad = true
		}
		if bad {
			failed++
		}
	}
	r.Requested, r.Failed, r.Completed = len(jobs), failed, len(jobs)-failed
}

// fioMetrics adds up the clones' IOPS and bandwidth per direction the job
// did I/O in (a direction without any has no rate, and no metric), and
// their latency, weighted by each clone's I/Os; iops and bw are the sums
// over the directions.
func (r *Record) fioMetrics(clones []fioJob) {
	iops, bw := 0.0, 0.0
	for _, dir := range []string{"read", "write", "trim"} {
		var bytesDone, dirIOPS, dirBW, latSum, ios float64
		for _, j := range clones {
			d := j.directions()[dir]
			if d == nil {
				continue
			}
			bytesDone, dirIOPS, dirBW = bytesDone+d.IOBytes, dirIOPS+d.IOPS, dirBW+d.BW
			if d.Latency != nil {
				latSum, ios = latSum+d.Latency.Mean*d.TotalIOs, ios+d.TotalIOs
			}
		}
		if bytesDone == 0 {
			continue
		}
		r.Metrics[dir+"_iops"], r.Metrics[dir+"_bw"] = dirIOPS, dirBW
		if ios > 0 {
			r.Metrics[dir+"_mean_latency"] = latSum / ios
		}
		iops, bw = iops+dirIOPS, bw+dirBW
	}
	r.Metrics["iops"], r.Metrics["bw"] = iops, bw
}
