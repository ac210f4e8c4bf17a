// rekey-kills.test.ts stops `skein rekey` at one exact rename with strace: install it once, as root.
export { default } from "@skein/test-support/install-strace";
