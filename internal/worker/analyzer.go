package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/confine"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Component code is parsed with esbuild before the sandbox loads it, and
// esbuild's parser recurses without bound: about 200,000 nested `!` or
// `[` overflow the Go stack, a fatal error no recover catches. No pre-scan
// can cover every shape a recursive-descent parser recurses on (parens,
// brackets, unary and ternary chains, arrows, templates, statements...),
// and npm bundling will put far larger untrusted code through esbuild. So
// the server parses in a process of its own: this binary, started with
// workerEnv set, with a small stack and memory limit and a deadline. An
// input that kills the worker is a 400 for its sender, never the server's
// end. The guest's QuickJS parser needs no such guard: it runs in wasm,
// under its own stack limit.

// workerEnv names the internal worker a fount process is started as.
const (
	workerEnv     = "FOUNT_INTERNAL_WORKER"
	analyzeWorker = "analyze"
)

// Limits of the analyze worker. Real component code nests a few dozen
// levels deep; these allow thousands, and stop a hostile input at a few
// hundred megabytes.
const (
	workerMaxStack   = 128 << 20
	workerMaxData    = 1 << 30 // RLIMIT_DATA: the heap the worker may map
	workerMaxRequest = 16 << 20
	workerMaxReply   = 1 << 20
	analyzeTimeout   = 20 * time.Second
)

// analyzeRequest and analyzeReply are the worker's stdin and stdout.
type analyzeRequest struct {
	Code     string            `json:"code"`
	Filename string            `json:"filename,omitempty"`
	Modules  map[string]string `json:"modules,omitempty"`
}

type analyzeReply struct {
	Format string          `json:"format,omitempty"`
	Error  *abi.GuestError `json:"error,omitempty"`
}

// Analyzer is the host.Analyzer of a server: host.InProcess in a child
// process of the executable Exe.
type Analyzer struct{ Exe string }

var _ host.Analyzer = Analyzer{}

// errUnparsable is the answer to code that killed the worker.
var errUnparsable = &sandbox.ScriptError{GuestError: abi.GuestError{Name: "SyntaxError",
	Message: "the code could not be parsed: it is nested too deeply, or is too large, for the parser"}}

func (a Analyzer) Analyze(ctx context.Context, code, filename string, modules map[string]string) (string, error) {
	req, err := json.Marshal(analyzeRequest{Code: code, Filename: filename, Modules: modules})
	if err != nil {
		return "", err
	}
	if len(req) > workerMaxRequest {
		return "", &sandbox.ScriptError{GuestError: abi.GuestError{Name: "RangeError", Message: fmt.Sprintf("the code is over the %d MiB the parser takes", workerMaxRequest>>20)}}
	}
	var reply analyzeReply
	err = runWorkerProcess(ctx, workerJob{exe: a.Exe, name: analyzeWorker, request: req, timeout: analyzeTimeout, maxReply: workerMaxReply}, &reply)
	switch {
	case errors.Is(err, errWorkerDeadline):
		return "", &sandbox.ScriptError{GuestError: abi.GuestError{Name: "RangeError", Message: fmt.Sprintf("parsing the code took longer than %v", analyzeTimeout)}}
	case errors.Is(err, errWorkerDied):
		return "", errUnparsable
	case err != nil:
		return "", err
	}
	if reply.Error != nil {
		return "", &sandbox.ScriptError{GuestError: *reply.Error}
	}
	return reply.Format, nil
}

var (
	// errWorkerDeadline is a worker that ran past its time.
	errWorkerDeadline = errors.New("worker: deadline")
	// errWorkerDied is a worker that died or answered nonsense: what it
	// was given killed it.
	errWorkerDied = errors.New("worker: died")
)

// workerJob is one run of an internal worker.
type workerJob struct {
	exe      string // this executable
	name     string // the worker it is started as
	request  []byte // its stdin
	timeout  time.Duration
	maxReply int // bytes of reply at most
	// files the worker may reach besides its executable: none for the
	// parser, the npm cache and the network's configuration for the
	// bundler (see internal/confine).
	files []confine.Rule
	env   []string // besides workerEnv
}

// runWorkerProcess runs job within its timeout, confined to its files
// where the kernel can confine it, and decodes its reply into reply. A
// worker that fails to start is the server's error.
func runWorkerProcess(ctx context.Context, job workerJob, reply any) error {
	ctx, cancel := context.WithTimeout(ctx, job.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, job.exe)
	cmd.Env = append([]string{workerEnv + "=" + job.name}, job.env...)
	cmd.Stdin = bytes.NewReader(job.request)
	out := &cappedBuffer{max: job.maxReply}
	cmd.Stdout, cmd.Stderr = out, io.Discard
	err := confine.Start(cmd, append(confine.Executable(job.exe), job.files...))
	if errors.Is(err, confine.ErrUnsupported) {
		err = cmd.Start() // serve warned at start that workers run unconfined
	}
	if err != nil {
		return fmt.Errorf("start the %s worker: %w", job.name, err)
	}
	runErr := cmd.Wait()
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		return errWorkerDeadline
	} else if err != nil {
		return err
	}
	if runErr != nil || out.over || json.Unmarshal(out.Bytes(), reply) != nil {
		return errWorkerDied
	}
	return nil
}

// cappedBuffer keeps at most max bytes and notes when more came.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		b.over = true
		return 0, errors.New("reply too large")
	}
	return b.Buffer.Write(p)
}

// startWorker sets a worker's limits and reads its one request from
// stdin into req; false when there is none to read.
func startWorker(stdin io.Reader, req any) bool {
	debug.SetMaxStack(workerMaxStack)
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: workerMaxData, Max: workerMaxData})
	raw, err := io.ReadAll(io.LimitReader(stdin, workerMaxRequest+1))
	return err == nil && len(raw) <= workerMaxRequest && json.Unmarshal(raw, req) == nil
}

// runAnalyzeWorker is the worker's main: one request on stdin, one reply
// on stdout.
func runAnalyzeWorker(stdin io.Reader, stdout io.Writer) int {
	var req analyzeRequest
	if !startWorker(stdin, &req) {
		return 2
	}
	var reply analyzeReply
	format, err := host.InProcess{}.Analyze(context.Background(), req.Code, req.Filename, req.Modules)
	var se *sandbox.ScriptError
	switch {
	case errors.As(err, &se):
		reply.Error = &se.GuestError
	case err != nil:
		return 1
	default:
		reply.Format = format
	}
	if err := json.NewEncoder(stdout).Encode(reply); err != nil {
		return 1
	}
	return 0
}

// Run runs this process as the internal worker its environment names,
// and reports whether it was one: a binary that starts workers calls it
// first thing in main.
func Run() (code int, ok bool) {
	switch os.Getenv(workerEnv) {
	case analyzeWorker:
		return runAnalyzeWorker(os.Stdin, os.Stdout), true
	case bundleWorker:
		return runBundleWorker(os.Stdin, os.Stdout), true
	}
	return 0, false
}
