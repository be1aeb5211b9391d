// Package worker runs the server's work on untrusted code in processes
// of their own: parsing component code (Analyzer, for the host) and
// resolving and bundling npm packages (Packages, for the engine). Each
// job starts this executable again as a worker (Run, called first thing
// in main), with small stack and memory limits, a deadline and, where
// the kernel allows, only the files it needs (internal/confine), so that
// an input that kills esbuild's parser ends one worker, not the server.
package worker
