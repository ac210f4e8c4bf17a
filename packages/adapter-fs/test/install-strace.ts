// segment-json-kill.test.ts stops a process at one exact system call with strace: install it once, as root.
export { default } from "@skein/test-support/install-strace";
