/**
 * The integration tests of the {@code kvm} backend on the real stack of
 * {@code scripts/test-stack.sh}: libvirtd reached through a real sshd on 127.0.0.1. The
 * conformance suite, the fault tests (wrong host key, sshd killed mid-call, libvirtd frozen with
 * SIGSTOP, a key file that appears late) and the listManaged benchmark (tag {@code benchmark},
 * run with {@code -Pbenchmarks}). Everything they make is named {@code egress-it-...}, and
 * {@link dev.egressproxies.integration.kvm.NoKvmLeftovers} checks after each class that none of it
 * remains.
 */
package dev.egressproxies.integration.kvm;
