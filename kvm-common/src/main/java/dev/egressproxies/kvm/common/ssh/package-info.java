/**
 * The SSH tunnel to a hypervisor: {@link dev.egressproxies.kvm.common.ssh.SshTunnel} connects with
 * a private key, checks the host key against known_hosts, keeps the link alive, and forwards the
 * host's libvirt unix socket to a private local one.
 *
 * <p>Built on Apache MINA SSHD, which stays an implementation detail: no MINA type appears in
 * this package's public API.
 */
package dev.egressproxies.kvm.common.ssh;
