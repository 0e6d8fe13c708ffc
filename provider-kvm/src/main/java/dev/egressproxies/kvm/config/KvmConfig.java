package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.seed.NoCloudSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 *     images:                             # at least one; format qcow2 (default) or raw
 *       debian-12: {url: https://cloud.debian.org/.../debian-12-genericcloud-amd64.qcow2}
 *     diskSizeGb: 10                      # default 10: each VM's disk, in GiB
 *     vendorData: "#cloud-config ..."     # default: installs the QEMU guest agent
 *     sshKeyFile: /etc/egress/kvm/id_ed25519      # required
 *     knownHostsFile: /etc/egress/kvm/known_hosts # required unless insecureIgnoreHostKey
 *     insecureIgnoreHostKey: false        # default false; true accepts any host key (test machines only)
 *     handshakeTimeout: 30s               # default 30s
 *     keepaliveInterval: 15s              # default 15s
 * }</pre>
 *
 * @param hosts                 the hypervisors; their names are the zones, unique within the entry
 * @param machineTypes          the machine types by name
 * @param images                the images by name; the name also names the cached base volume
 * @param diskSizeGb            the size of each VM's disk in GiB
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
 */
public record KvmConfig(List<KvmHost> hosts, Map<String, MachineType> machineTypes, Map<String, KvmImage> images,
                        Integer diskSizeGb, String vendorData, Path sshKeyFile, Path knownHostsFile,
                        Boolean insecureIgnoreHostKey, Duration handshakeTimeout, Duration keepaliveInterval) {

    /** Each VM's disk size unless configured, in GiB. */
    public static final int DEFAULT_DISK_SIZE_GB = 10;
    /** Long enough for a loaded host, short enough that a half-open one does not pin a caller. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(30);
    /** Notices a dead link within a few intervals rather than at the TCP stack's leisure. */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(15);
    /** The largest disk accepted, in GiB (64 TiB); a guard against a typo that fills the pool. */
    public static final int MAXIMUM_DISK_SIZE_GB = 65536;

    /** Applies defaults and rejects settings that cannot work, naming the setting to fix and how. */
    public KvmConfig {
        hosts = hosts(hosts);
        machineTypes = named("machineTypes", machineTypes, "small: {vcpus: 1, memoryMiB: 512}");
        images = named("images", images, "debian-12: {url: https://.../debian-12-genericcloud-amd64.qcow2}");
        diskSizeGb = diskSizeGb == null ? DEFAULT_DISK_SIZE_GB : diskSizeGb;
        if (diskSizeGb < 1 || diskSizeGb > MAXIMUM_DISK_SIZE_GB) {
            throw new IllegalArgumentException("diskSizeGb: " + diskSizeGb + " is out of range; use 1 to "
                    + MAXIMUM_DISK_SIZE_GB + " (GiB), or leave it out for " + DEFAULT_DISK_SIZE_GB);
        }
        vendorData = vendorData == null ? NoCloudSeed.DEFAULT_VENDOR_DATA : vendorData;
        if (sshKeyFile == null || sshKeyFile.toString().isBlank()) {
            throw new IllegalArgumentException("sshKeyFile: required; the unencrypted private key (ed25519, RSA or"
                    + " ECDSA) that logs in to every host, for example /etc/egress/kvm/id_ed25519");
        }
        insecureIgnoreHostKey = insecureIgnoreHostKey != null && insecureIgnoreHostKey;
        boolean knownHostsGiven = knownHostsFile != null && !knownHostsFile.toString().isBlank();
        if (insecureIgnoreHostKey && knownHostsGiven) {
            throw new IllegalArgumentException("knownHostsFile: set together with insecureIgnoreHostKey: true, which"
                    + " ignores it; remove one of the two (keep knownHostsFile unless this is a test machine)");
        }
        if (!insecureIgnoreHostKey && !knownHostsGiven) {
            throw new IllegalArgumentException("knownHostsFile: required, so the hosts' SSH keys can be checked;"
                    + " write it with 'ssh-keyscan -p PORT HOST', or set insecureIgnoreHostKey: true on test"
                    + " machines only");
        }
        handshakeTimeout = positive("handshakeTimeout", handshakeTimeout, DEFAULT_HANDSHAKE_TIMEOUT);
        keepaliveInterval = positive("keepaliveInterval", keepaliveInterval, DEFAULT_KEEPALIVE_INTERVAL);
    }

    /** The host of that name, if configured. */
    public Optional<KvmHost> host(String name) {
        return hosts.stream().filter(host -> host.name().equals(name)).findFirst();
    }

    /** The configured host names, in configuration order, for messages. */
    public List<String> hostNames() {
        return hosts.stream().map(KvmHost::name).toList();
    }

    private static List<KvmHost> hosts(List<KvmHost> hosts) {
        if (hosts == null || hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts: at least one host is required, for example"
                    + " [{name: host-1, address: 10.0.0.5, bridge: br0}]");
        }
        Set<String> names = new HashSet<>();
        List<KvmHost> checked = new ArrayList<>();
        for (int index = 0; index < hosts.size(); index++) {
            KvmHost host = hosts.get(index);
            if (host == null) {
                throw new IllegalArgumentException("hosts: entry " + index + " is empty; give it at least name,"
                        + " address and bridge");
            }
            if (!names.add(host.name())) {
                throw new IllegalArgumentException("hosts: the name '" + host.name() + "' is used twice; host names"
                        + " are zones and parts of provider IDs, so each must be unique");
            }
            checked.add(host);
        }
        return List.copyOf(checked);
    }

    private static <V> Map<String, V> named(String component, Map<String, V> entries, String example) {
        if (entries == null || entries.isEmpty()) {
            throw new IllegalArgumentException(component + ": at least one is required, for example {" + example + "}");
        }
        Map<String, V> checked = new LinkedHashMap<>();
        entries.forEach((name, value) -> {
            if (name == null || !ConfigChecks.NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(component + ": the name '" + name + "' is not valid; use 1 to 63"
                        + " letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
            }
            if (value == null) {
                throw new IllegalArgumentException(component + ": '" + name + "' has no settings; for example {"
                        + example + "}");
            }
            checked.put(name, value);
        });
        return Collections.unmodifiableMap(checked);
    }

    private static Duration positive(String component, Duration value, Duration fallback) {
        if (value == null) {
            return fallback;
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(component + ": " + value + " is not positive; for example "
                    + fallback.toSeconds() + "s");
        }
        return value;
    }
}
