package redact

import (
	"strings"
	"testing"
)

func TestSecret(t *testing.T) {
	for name, secret := range map[string]bool{
		"HF_TOKEN": true, "aws_secret_access_key": true, "DB_Password": true, "PASSWD": true,
		"SSH_AUTH_SOCK": true, "Cookie": true, "GITHUB_CREDENTIALS": true, "API_KEY": true,
		"MY_DB_PASS": true, "FOO_TOKEN": true, "db-pwd": true,
		"PATH": false, "DISAGGSIM_TERMINAL": false, "NCCL_ALGO": false, "HOME": false,
		"BYPASS_CACHE": false, "PWD": false, "ABBENCH_TOKEN": false, "ABBENCH_ARM_KEYS": false,
		// A count of a model's tokens is the knob an LLM-serving A/B varies.
		"HF_MAX_BATCH_TOKENS": false, "VLLM_MAX_NUM_BATCHED_TOKENS": false, "MAX_TOKENS": false,
		// A marker inside a word, or beside the plural, still counts.
		"APIKEY": true, "HFTOKEN": true, "TOKENS_SECRET": true, "MAX_TOKENS_AUTH": true,
	} {
		if Secret(name) != secret {
			t.Errorf("Secret(%q) = %v", name, !secret)
		}
	}
	got := Env([]string{"HF_TOKEN=hf_abc", "PATH=/bin", "odd", "DB_URL=postgres://app:hunter22@db:5432/x"})
	if got[0] != "HF_TOKEN=[REDACTED]" || got[1] != "PATH=/bin" || got[2] != "odd" || got[3] != "DB_URL=postgres://app:[REDACTED]@db:5432/x" {
		t.Fatalf("%v", got)
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"redis://:pw0rd@localhost:6379/0":            "redis://:[REDACTED]@localhost:6379/0",
		"--url=https://user:p%40ss@example.org/path": "--url=https://user:[REDACTED]@example.org/path",
		"https://example.org/a:b@c":                  "https://example.org/a:b@c", // no credentials: ':' after the host
		"user@host:22":                               "user@host:22",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValues(t *testing.T) {
	var vs Values
	vs.Add("hf_secretvalue")
	vs.Add("hf_secret") // a prefix of the first: the longer is replaced first
	vs.Add("1")         // too short to redact
	got := vs.In("--hf-token=hf_secretvalue --other=hf_secret --n=1")
	if strings.Contains(got, "hf_secret") || got != "--hf-token=[REDACTED] --other=[REDACTED] --n=1" {
		t.Fatalf("%q", got)
	}
	env := vs.EnvIn([]string{"ARG=x hf_secretvalue y", "N=1"})
	if env[0] != "ARG=x [REDACTED] y" || env[1] != "N=1" {
		t.Fatalf("%v", env)
	}
}

func TestAddEnv(t *testing.T) {
	var vs Values
	vs.AddEnv([]string{"OPENAI_API_KEY=sk-abcdef", "MY_DB_PASS=pa55word", "MODEL=llama-3-8b", "PWD=/home/x", "BROKEN", EnvValues + `=["route-77", "gw \"q\""]`})
	got := vs.In(`key sk-abcdef pass pa55word model llama-3-8b dir /home/x route /v1/route-77 gw "q"`)
	if got != "key [REDACTED] pass [REDACTED] model llama-3-8b dir /home/x route /v1/[REDACTED] [REDACTED]" {
		t.Fatalf("%q", got)
	}
}
