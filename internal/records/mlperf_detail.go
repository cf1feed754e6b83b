package records

import (
	"bytes"
	"encoding/json"
	"strings"
)

// mlperfEntry is one :::MLLOG line of a detail log.
type mlperfEntry struct {
	Key      string          `json:"key"`
	Value    json.RawMessage `json:"value"`
	Metadata struct {
		IsError bool `json:"is_error"`
	} `json:"metadata"`
}

// mlperfChecks are the detail log's keys of LoadGen's checks, with the
// summary's names of them.
var mlperfChecks = map[string]string{
	"result_perf_constraints_met": "Performance constraints",
	"result_min_duration_met":     "Min duration",
	"result_min_queries_met":      "Min queries",
	"early_stopping_met":          "Early stopping",
}

// mlperfDetail reads mlperf_log_detail.txt: one JSON entry per
// :::MLLOG line; a log of one run holds result_validity once.
func (r *Record) mlperfDetail(data []byte) {
	var entries []mlperfEntry
	for i, line := range bytes.Split(data, []byte("\n")) {
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(":::MLLOG "))
		if !ok {
			continue
		}
		var e mlperfEntry
		if err := json.Unmarshal(rest, &e); err != nil {
			r.problem("line %d: the :::MLLOG entry does not parse: %v", i+1, err)
			continue
		}
		entries = append(entries, e)
	}
	multiStream := false
	validity := 0
	for _, e := range entries {
		switch e.Key {
		case "effective_scenario":
			multiStream = jsonString(e.Value) == "MultiStream"
		case "result_validity":
			validity++
		}
	}
	if validity != 1 {
		r.unreadable("holds result_validity %d times: LoadGen logs it once, at the end of a performance run (is it an accuracy run's, cut short, or several runs' logs in one?)", validity)
		return
	}
	v := &mlperfVerdict{}
	for _, e := range entries {
		r.mlperfDetailEntry(e, v, multiStream)
	}
	r.giveMLPerfVerdict(v)
}

// mlperfDetailEntry reads one entry into the verdict or the record.
func (r *Record) mlperfDetailEntry(e mlperfEntry, v *mlperfVerdict, multiStream bool) {
	if e.Metadata.IsError {
		v.errMsgs = append(v.errMsgs, jsonString(e.Value))
		v.errors = max(v.errors, len(v.errMsgs))
	}
	if check, ok := mlperfChecks[e.Key]; ok {
		var met bool
		if err := json.Unmarshal(e.Value, &met); err != nil {
			r.problem("%s is not true or false: %s", e.Key, e.Value)
		}
		v.check(check, met)
		return
	}
	switch e.Key {
	case "result_validity":
		v.result = jsonString(e.Value)
	case "result_invalid_reason":
		if reason := strings.TrimSuffix(strings.Join(strings.Fields(jsonString(e.Value)), " "), "."); reason != "" {
			v.advice = append(v.advice, reason)
		}
	case "early_stopping_result", "early_stopping_ttft_result", "early_stopping_tpot_result":
		text := jsonString(e.Value)
		which := strings.TrimSuffix(strings.TrimPrefix(e.Key, "early_stopping_"), "_result")
		if which == "result" {
			which = ""
		}
		if reason := earlyStoppingReason(which, text); reason != "" {
			v.advice = append(v.advice, strings.TrimSuffix(reason, "."))
		}
		r.mlperfEstimates(text, multiStream)
	case "result_query_count":
		if f, ok := jsonNumber(e.Value); ok {
			if n, ok := r.count(e.Key, f); ok {
				r.Completed = n
			}
		}
	case "num_errors":
		if f, ok := jsonNumber(e.Value); ok {
			if n, ok := r.count(e.Key, f); ok {
				v.errors = max(v.errors, n)
			}
		}
	default:
		if name, ok := mlperfMetricName(mlperfDetailNames, e.Key, multiStream); ok {
			if f, ok := jsonNumber(e.Value); ok {
				r.setMLPerfMetric(name, f)
			} else {
				r.problem("%s is not a number: %s", e.Key, e.Value)
			}
		}
	}
}

// jsonString is a JSON string's text, or the raw JSON of another value.
func jsonString(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return string(raw)
	}
	return s
}

func jsonNumber(raw json.RawMessage) (float64, bool) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, false
	}
	return number(n)
}
