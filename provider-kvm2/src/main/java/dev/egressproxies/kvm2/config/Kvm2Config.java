package dev.egressproxies.kvm2.config;

import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.instance.EntrySettings;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.config.SshAccess;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageFetcher;
import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The settings of one {@code kvm2} provider entry: the hypervisors it places VMs on, the machine
 * types placements may name, the image catalogue (placements may also name an http(s) URL), how it
 * logs in to the hosts over SSH, and its time budgets.
 * <pre>{@code
 * providers:
 *   - name: kvm2-a
 *     type: kvm2
 *     hosts:                              # at least one; see HostSettings for every setting
 *       - {name: host-1, address: 10.0.0.5, bridge: br0}
 *     machineTypes:                       # at least one
 *       small: {vcpus: 1, memoryMiB: 512}
 *     images:                             # optional; see CatalogueImage for every setting
 *       debian-12: {url: https://.../debian-12-genericcloud-amd64.qcow2, sha256: 0f1e..., firmware: bios}
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
 *     rpcBudget: 2m                       # default 2m: the longest one round of libvirt calls may take
 *     transferBudget: 20m                 # default 20m: the longest one image fetch may take
 *     imageIdleTimeout: 30s               # default 30s: the longest an image server may stay silent
 *     fetch: client                       # default client; host: the hypervisors download images themselves
 * }</pre>
 *
 * @param hosts                 the hypervisors; their names are the zones, unique within the entry
 * @param machineTypes          the machine types by name
 * @param images                the image catalogue by key; the key (with the entry's name) names the
 *                              cached base volume; empty when placements name URLs only
 * @param diskSizeGb            the size of each VM's disk in GiB
 * @param claimsHost            the host whose pool holds the entry's name claims and cordons, so every
 *                              process sees them; absent for the first host
 * @param claimTimeout          the longest a create or delete holds its name claim (it is cut off
 *                              before); a claim older than that is stale and taken over
 * @param vendorData            the cloud-init vendor-data every VM gets; {@code ""} gives an empty
 *                              file, absent gives {@link NoCloudSeed#DEFAULT_VENDOR_DATA}
 * @param sshKeyFile            the private key that logs in to every host
 * @param knownHostsFile        the OpenSSH known_hosts file the hosts' keys are checked against
 * @param insecureIgnoreHostKey whether to accept any host key (test machines only)
 * @param handshakeTimeout      the limit for connecting and logging in to a host
 * @param keepaliveInterval     how often an idle connection is probed, so a dead link is noticed
 * @param sshConfigFile         the OpenSSH client configuration whose Host blocks describe the hosts
 * @param identityAgent         the ssh-agent socket whose keys are offered to every host
 * @param passphraseFile        the file whose first line decrypts key files protected by a passphrase
 * @param rpcBudget             the time limit of one round of libvirt calls (and of an image size
 *                              probe), within the caller's deadline
 * @param transferBudget        the time limit of one image fetch into a host's pool, within the
 *                              caller's deadline; the HTTP body must end a little before it
 * @param imageIdleTimeout      the longest an image server may stay silent: before the response
 *                              headers of a HEAD or GET, and between bytes of the body; within the
 *                              caller's deadline
 * @param fetch                 where images are fetched unless an image says otherwise: {@code client}
 *                              (egressctl downloads and uploads them through libvirt) or {@code host}
 *                              (each hypervisor downloads them itself, into a dir pool)
 */
public record Kvm2Config(List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                         Map<String, CatalogueImage> images, Integer diskSizeGb, String vendorData, Path sshKeyFile,
                         Path knownHostsFile, Boolean insecureIgnoreHostKey, Duration handshakeTimeout,
                         Duration keepaliveInterval, Duration rpcBudget, Duration transferBudget,
                         Duration imageIdleTimeout, Path sshConfigFile,
                         Path identityAgent, Path passphraseFile, String claimsHost, Duration claimTimeout,
                         String fetch) {

    /** Long enough for a loaded host's round of calls, dial included; short enough that a hung one is noticed. */
    public static final Duration DEFAULT_RPC_BUDGET = Duration.ofMinutes(2);
    /** Long enough for a few GiB over a slow mirror; a transfer that takes longer is better retried. */
    public static final Duration DEFAULT_TRANSFER_BUDGET = Duration.ofMinutes(20);

    /** Applies defaults and rejects settings that cannot work, naming the setting to fix and how. */
    public Kvm2Config {
        hosts = ConfigChecks.hosts(hosts, HostSettings::name);
        machineTypes = ConfigChecks.named("machineTypes", machineTypes, "small: {vcpus: 1, memoryMiB: 512}");
        images = images == null || images.isEmpty()
                ? Map.of()
                : ConfigChecks.named("images", images, "debian-12: {url: https://.../debian-12-genericcloud-amd64.qcow2}");
        insecureIgnoreHostKey = new SshAccess(sshKeyFile, knownHostsFile, insecureIgnoreHostKey, handshakeTimeout,
                keepaliveInterval, sshConfigFile, identityAgent, passphraseFile).insecureIgnoreHostKey();
        diskSizeGb = ConfigChecks.diskSizeGb(diskSizeGb);
        claimsHost = ConfigChecks.claimsHost(claimsHost, hosts.stream().map(HostSettings::name).toList());
        claimTimeout = ConfigChecks.positive("claimTimeout", claimTimeout, EntrySettings.DEFAULT_CLAIM_TIMEOUT);
        vendorData = ConfigChecks.vendorData(vendorData);
        rpcBudget = ConfigChecks.positive("rpcBudget", rpcBudget, DEFAULT_RPC_BUDGET);
        transferBudget = ConfigChecks.positive("transferBudget", transferBudget, DEFAULT_TRANSFER_BUDGET);
        imageIdleTimeout = ConfigChecks.positive("imageIdleTimeout", imageIdleTimeout, ImageFetcher.DEFAULT_IDLE_LIMIT);
        fetch = fetch == null ? FetchLocation.CLIENT.configName()
                : ConfigChecks.parse("fetch", fetch, FetchLocation::parse).configName();
    }

    /** Images fetched by the client. */
    public Kvm2Config(List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                      Map<String, CatalogueImage> images, Integer diskSizeGb, String vendorData, Path sshKeyFile,
                      Path knownHostsFile, Boolean insecureIgnoreHostKey, Duration handshakeTimeout,
                      Duration keepaliveInterval, Duration rpcBudget, Duration transferBudget,
                      Duration imageIdleTimeout, Path sshConfigFile, Path identityAgent, Path passphraseFile,
                      String claimsHost, Duration claimTimeout) {
        this(hosts, machineTypes, images, diskSizeGb, vendorData, sshKeyFile, knownHostsFile, insecureIgnoreHostKey,
                handshakeTimeout, keepaliveInterval, rpcBudget, transferBudget, imageIdleTimeout, sshConfigFile,
                identityAgent, passphraseFile, claimsHost, claimTimeout, null);
    }

    /** Claims on the first host, with the default claim timeout. */
    public Kvm2Config(List<HostSettings> hosts, Map<String, MachineSize> machineTypes,
                      Map<String, CatalogueImage> images, Integer diskSizeGb, String vendorData, Path sshKeyFile,
                      Path knownHostsFile, Boolean insecureIgnoreHostKey, Duration handshakeTimeout,
                      Duration keepaliveInterval, Duration rpcBudget, Duration transferBudget,
                      Duration imageIdleTimeout, Path sshConfigFile, Path identityAgent, Path passphraseFile) {
        this(hosts, machineTypes, images, diskSizeGb, vendorData, sshKeyFile, knownHostsFile, insecureIgnoreHostKey,
                handshakeTimeout, keepaliveInterval, rpcBudget, transferBudget, imageIdleTimeout, sshConfigFile,
                identityAgent, passphraseFile, null, null, null);
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
