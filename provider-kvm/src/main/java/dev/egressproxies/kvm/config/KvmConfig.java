package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.instance.EntrySettings;
import dev.egressproxies.kvm.common.config.SshAccess;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of one {@code kvm} provider entry: the hypervisors it places VMs on, the machine
 * types and images placements may name, and how it logs in to the hosts over SSH.
 * <pre>{@code
 * providers:
 *   - name: kvm-a
 *     type: kvm
 *     hosts:                              # at least one; see KvmHost for every setting
 *       - {name: host-1, address: 10.0.0.5, bridge: br0}
 *     machineTypes:                       # at least one
 *       small: {vcpus: 1, memoryMiB: 512}
 *     images:                             # at least one; format qcow2 (default) or raw; fetch client or host
 *       debian-12: {url: https://cloud.debian.org/.../debian-12-genericcloud-amd64.qcow2}
 *     diskSizeGb: 10                      # default 10: each VM's disk, in GiB
 *     claimsHost: host-1                  # default the first host: holds name claims and cordons
 *     claimTimeout: 30m                   # default 30m: the longest a create or delete holds its name claim
 *     vendorData: "#cloud-config ..."     # default: installs the QEMU guest agent
 *     sshKeyFile: /etc/egress/kvm/id_ed25519      # else ssh_config's IdentityFile, the agent's or OpenSSH's default keys
 *     knownHostsFile: /etc/egress/kvm/known_hosts # else ssh_config's UserKnownHostsFile, else ~/.ssh/known_hosts
 *     insecureIgnoreHostKey: false        # default false; true accepts any host key (test machines only)
 *     handshakeTimeout: 30s               # else ssh_config's ConnectTimeout, else 30s
 *     keepaliveInterval: 15s              # else ssh_config's ServerAliveInterval, else 15s
 *     sshConfigFile: /etc/egress/kvm/ssh_config   # default ~/.ssh/config if it exists; addresses may be its Host aliases
 *     identityAgent: /run/user/1000/ssh-agent.sock  # else ssh_config's IdentityAgent, else SSH_AUTH_SOCK
 *     passphraseFile: /etc/egress/kvm/passphrase    # optional: decrypts key files protected by a passphrase
 *     imageIdleTimeout: 30s               # default 30s: the longest an image server may stay silent
 *     fetch: client                       # default client; host: the hypervisors download images themselves
 * }</pre>
 *
 * @param hosts                 the hypervisors; their names are the zones, unique within the entry
 * @param machineTypes          the machine types by name
 * @param images                the images by name; the name also names the cached base volume
 * @param diskSizeGb            the size of each VM's disk in GiB
 * @param claimsHost            the host whose pool holds the entry's name claims and cordons, so every
 *                              process sees them; absent for the first host
 * @param claimTimeout          the longest a create or delete holds its name claim (it is cut off
 *                              before); a claim older than that is stale and taken over
 * @param vendorData            the cloud-init vendor-data every VM gets; {@code ""} gives an empty
 *                              file, absent gives {@link NoCloudSeed#DEFAULT_VENDOR_DATA}
 * @param sshKeyFile            the private key that logs in to every host; read at each connection,
 *                              so a key mounted later heals the next attempt
 * @param knownHostsFile        the OpenSSH known_hosts file the hosts' keys are checked against
 * @param insecureIgnoreHostKey whether to accept any host key: anyone who can intercept the
 *                              connection can then pose as the hypervisor; for throwaway test
 *                              machines only, and mutually exclusive with knownHostsFile
 * @param handshakeTimeout      the limit for connecting and logging in to a host
 * @param keepaliveInterval     how often an idle connection is probed, so a dead link is noticed
 * @param sshConfigFile         the OpenSSH client configuration whose Host blocks describe the hosts
 * @param identityAgent         the ssh-agent socket whose keys are offered to every host
 * @param passphraseFile        the file whose first line decrypts key files protected by a passphrase
 * @param imageIdleTimeout      the longest an image server may stay silent: before the response
 *                              headers of a HEAD or GET, and between bytes of the body; within the
 *                              caller's deadline
 * @param fetch                 where images are fetched unless an image says otherwise: {@code client}
 *                              (egressctl downloads and uploads them through libvirt) or {@code host}
 *                              (each hypervisor downloads them itself, into a dir pool)
 */
public record KvmConfig(List<KvmHost> hosts, Map<String, MachineType> machineTypes, Map<String, KvmImage> images,
                        Integer diskSizeGb, String vendorData, Path sshKeyFile, Path knownHostsFile,
                        Boolean insecureIgnoreHostKey, Duration handshakeTimeout, Duration keepaliveInterval,
                        Duration imageIdleTimeout, Path sshConfigFile,
                        Path identityAgent, Path passphraseFile, String claimsHost, Duration claimTimeout,
                        String fetch) {

    /** Each VM's disk size unless configured, in GiB. */
    public static final int DEFAULT_DISK_SIZE_GB = ConfigChecks.DEFAULT_DISK_SIZE_GB;
    /** Long enough for a loaded host, short enough that a half-open one does not pin a caller. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = SshAccess.DEFAULT_HANDSHAKE_TIMEOUT;
    /** Notices a dead link within a few intervals rather than at the TCP stack's leisure. */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = SshAccess.DEFAULT_KEEPALIVE_INTERVAL;
    /** The largest disk accepted, in GiB (64 TiB); a guard against a typo that fills the pool. */
    public static final int MAXIMUM_DISK_SIZE_GB = ConfigChecks.MAXIMUM_DISK_SIZE_GB;

    /** Applies defaults and rejects settings that cannot work, naming the setting to fix and how. */
    public KvmConfig {
        hosts = ConfigChecks.hosts(hosts, KvmHost::name);
        machineTypes = ConfigChecks.named("machineTypes", machineTypes, "small: {vcpus: 1, memoryMiB: 512}");
        images = ConfigChecks.named("images", images,
                "debian-12: {url: https://.../debian-12-genericcloud-amd64.qcow2}");
        diskSizeGb = ConfigChecks.diskSizeGb(diskSizeGb);
        claimsHost = ConfigChecks.claimsHost(claimsHost, hosts.stream().map(KvmHost::name).toList());
        claimTimeout = ConfigChecks.positive("claimTimeout", claimTimeout, EntrySettings.DEFAULT_CLAIM_TIMEOUT);
        vendorData = ConfigChecks.vendorData(vendorData);
        insecureIgnoreHostKey = new SshAccess(sshKeyFile, knownHostsFile, insecureIgnoreHostKey, handshakeTimeout,
                keepaliveInterval, sshConfigFile, identityAgent, passphraseFile).insecureIgnoreHostKey();
        imageIdleTimeout = ConfigChecks.positive("imageIdleTimeout", imageIdleTimeout, ImageFetcher.DEFAULT_IDLE_LIMIT);
        fetch = fetch == null ? FetchLocation.CLIENT.configName()
                : ConfigChecks.parse("fetch", fetch, FetchLocation::parse).configName();
    }

    /** Images fetched by the client. */
    public KvmConfig(List<KvmHost> hosts, Map<String, MachineType> machineTypes, Map<String, KvmImage> images,
                     Integer diskSizeGb, String vendorData, Path sshKeyFile, Path knownHostsFile,
                     Boolean insecureIgnoreHostKey, Duration handshakeTimeout, Duration keepaliveInterval,
                     Duration imageIdleTimeout, Path sshConfigFile, Path identityAgent, Path passphraseFile,
                     String claimsHost, Duration claimTimeout) {
        this(hosts, machineTypes, images, diskSizeGb, vendorData, sshKeyFile, knownHostsFile, insecureIgnoreHostKey,
                handshakeTimeout, keepaliveInterval, imageIdleTimeout, sshConfigFile, identityAgent, passphraseFile,
                claimsHost, claimTimeout, null);
    }

    /** Claims on the first host, with the default claim timeout. */
    public KvmConfig(List<KvmHost> hosts, Map<String, MachineType> machineTypes, Map<String, KvmImage> images,
                     Integer diskSizeGb, String vendorData, Path sshKeyFile, Path knownHostsFile,
                     Boolean insecureIgnoreHostKey, Duration handshakeTimeout, Duration keepaliveInterval,
                     Duration imageIdleTimeout, Path sshConfigFile, Path identityAgent, Path passphraseFile) {
        this(hosts, machineTypes, images, diskSizeGb, vendorData, sshKeyFile, knownHostsFile, insecureIgnoreHostKey,
                handshakeTimeout, keepaliveInterval, imageIdleTimeout, sshConfigFile, identityAgent, passphraseFile,
                null, null, null);
    }

    /** The host of that name, if configured. */
    public Optional<KvmHost> host(String name) {
        return hosts.stream().filter(host -> host.name().equals(name)).findFirst();
    }

    /** Where images are fetched unless an image says otherwise. */
    public FetchLocation fetchLocation() {
        return FetchLocation.parse(fetch);
    }

    /** How the entry logs in to its hosts, as kvm-common's SSH tunnel takes it. */
    public SshAccess sshAccess() {
        return new SshAccess(sshKeyFile, knownHostsFile, insecureIgnoreHostKey, handshakeTimeout, keepaliveInterval,
                sshConfigFile, identityAgent, passphraseFile);
    }
}
