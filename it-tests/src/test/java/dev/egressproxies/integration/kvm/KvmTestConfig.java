package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.image.Archive;
import dev.egressproxies.kvm.common.image.Compression;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration of a {@code kvm} or {@code kvm2} entry on the test stack, written as the YAML
 * an operator would write, from the stack's {@code env} file: one host {@value #HOST} (sshd on
 * 127.0.0.1, the stack's pool and bridge), machine type {@value #MACHINE_TYPE}, image
 * {@value #IMAGE} (the stack's small qcow2 over its loopback HTTP server; for {@code kvm2} pinned
 * by its sha256 and booted with BIOS: the image holds no operating system, so UEFI's per-VM
 * variables file would be one more thing to create and remove for nothing). Tests change the SSH
 * files, the budgets, host settings, or add images; {@link #secondHost()} adds the host
 * {@value #HOST2}, the stack's second, independent libvirtd (its own sshd, socket and pool).
 */
final class KvmTestConfig {
    /** The {@code kvm} entry's name. */
    static final String ENTRY = "kvm-test";
    /** The {@code kvm2} entry's name. */
    static final String KVM2_ENTRY = "kvm2-test";
    /** The first host: the only one, and so the only zone, unless {@link #secondHost()} adds {@link #HOST2}. */
    static final String HOST = "local";
    /** The second host, the stack's second libvirtd, that {@link #secondHost()} adds. */
    static final String HOST2 = "local2";
    /** The machine type every test uses. */
    static final String MACHINE_TYPE = "small";
    /** The image every test uses; its base volume ({@code tiny.SOURCE.base.qcow2}) stays cached in the pool. */
    static final String IMAGE = "tiny";

    private final TestStack stack;
    private final String type;
    private String entry;
    private Path keyFile;
    private Path knownHostsFile;
    private int port;
    private boolean secondHost;
    private Duration handshakeTimeout = Duration.ofSeconds(30);
    /** When set, hosts are this Host alias of {@link #sshConfigFile}, which gives everything SSH needs. */
    private String sshConfigAlias;
    private Path sshConfigFile;
    private final Map<String, String> images = new LinkedHashMap<>();
    private final Map<String, String> extraSettings = new LinkedHashMap<>();
    private final Map<String, String> extraHostSettings = new LinkedHashMap<>();
    /** Settings of one host only, by host name; they win over {@link #extraHostSettings}. */
    private final Map<String, Map<String, String>> oneHostSettings = new LinkedHashMap<>();
    private final Map<String, String> machineTypes = new LinkedHashMap<>();

    private KvmTestConfig(TestStack stack, String type, String entry) {
        this.stack = stack;
        this.type = type;
        this.entry = entry;
        this.keyFile = Path.of(stack.value("EGRESS_TEST_SSH_KEY"));
        this.knownHostsFile = Path.of(stack.value("EGRESS_TEST_KNOWN_HOSTS"));
        this.port = Integer.parseInt(stack.value("EGRESS_TEST_SSH_PORT"));
        String url = stack.value("EGRESS_TEST_HTTP_URL") + "/" + stack.value("EGRESS_TEST_IMAGE_QCOW2");
        images.put(IMAGE, type.equals("kvm2") ? kvm2Image(url, sha256(stack.qcow2Image())) : kvmImage(url));
        machineTypes.put(MACHINE_TYPE, "{vcpus: 1, memoryMiB: 128}");
    }

    /** The {@code kvm} configuration that works: the stack's client key and known_hosts. */
    static KvmTestConfig standard() {
        return new KvmTestConfig(TestStack.load(), "kvm", ENTRY);
    }

    /** The {@code kvm2} configuration that works: the stack's client key and known_hosts. */
    static KvmTestConfig kvm2() {
        return new KvmTestConfig(TestStack.load(), "kvm2", KVM2_ENTRY);
    }

    /** The entry's name. */
    String entry() {
        return entry;
    }

    /** Names the entry otherwise (which also renames a kvm2 entry's cached base volumes). */
    KvmTestConfig entry(String name) {
        this.entry = name;
        return this;
    }

    /**
     * Adds the host {@value #HOST2}: the stack's second libvirtd, reached through its own sshd, with
     * a pool of the same name in its own folder. Host settings apply to both hosts.
     */
    KvmTestConfig secondHost() {
        this.secondHost = true;
        return this;
    }

    /** The configured hosts' names, which are the entry's zones. */
    List<String> hosts() {
        return secondHost ? List.of(HOST, HOST2) : List.of(HOST);
    }

    /** Adds or replaces a top-level setting of the entry, such as {@code transferBudget: 30s}. */
    KvmTestConfig setting(String key, String yamlValue) {
        extraSettings.put(key, yamlValue);
        return this;
    }

    /**
     * Adds or replaces a setting of the host, such as {@code domainType: qemu} or
     * {@code uefiLoader: "/usr/share/OVMF/OVMF_CODE_4M.fd"}.
     */
    KvmTestConfig hostSetting(String key, String yamlValue) {
        extraHostSettings.put(key, yamlValue);
        return this;
    }

    /**
     * Adds or replaces a setting of the one host {@code host} ({@value #HOST} or {@value #HOST2}),
     * such as {@code pool: "small"}; it wins over {@link #hostSetting(String, String)}.
     */
    KvmTestConfig hostSetting(String host, String key, String yamlValue) {
        if (!host.equals(HOST) && !host.equals(HOST2)) {
            throw new IllegalArgumentException("'" + host + "' is not a host of the stack (" + HOST + ", " + HOST2 + ")");
        }
        oneHostSettings.computeIfAbsent(host, name -> new LinkedHashMap<>()).put(key, yamlValue);
        return this;
    }

    /** Adds or replaces a machine type given as its YAML flow mapping, such as {@code {vcpus: 1, memoryMiB: 1024}}. */
    KvmTestConfig machineType(String key, String flowMapping) {
        machineTypes.put(key, flowMapping);
        return this;
    }

    /** The stack this configuration points at. */
    TestStack stack() {
        return stack;
    }

    /** Logs in with another private key file (which need not exist). */
    KvmTestConfig keyFile(Path file) {
        this.keyFile = file;
        return this;
    }

    /** Checks host keys against another known_hosts file. */
    KvmTestConfig knownHostsFile(Path file) {
        this.knownHostsFile = file;
        return this;
    }

    /**
     * Reaches the hosts as the {@code Host} alias {@code alias} of the ssh_config {@code file}: the
     * entry then names neither key nor known_hosts file, and the hosts neither port nor user.
     */
    KvmTestConfig throughSshConfig(Path file, String alias) {
        this.sshConfigFile = file;
        this.sshConfigAlias = alias;
        return this;
    }

    /** Limits connecting and logging in to the host. */
    KvmTestConfig handshakeTimeout(Duration timeout) {
        this.handshakeTimeout = timeout;
        return this;
    }

    /** Adds a qcow2 image served from {@code url} (a loopback URL); unpinned for {@code kvm2}. */
    KvmTestConfig image(String key, String url) {
        images.put(key, type.equals("kvm2") ? kvm2Image(url, null) : kvmImage(url));
        return this;
    }

    /**
     * Adds a {@code kvm2} catalogue image given as its YAML flow mapping, such as
     * {@code {url: "http://...", sha256: ..., compression: xz, firmware: bios}}.
     */
    KvmTestConfig catalogueImage(String key, String flowMapping) {
        if (!type.equals("kvm2")) {
            throw new IllegalStateException("catalogue images with settings are kvm2's; this is a " + type + " entry");
        }
        images.put(key, flowMapping);
        return this;
    }

    /** The private key file the entry logs in with. */
    Path keyFile() {
        return keyFile;
    }

    /** The configuration document, with a {@code providers} list holding the one entry. */
    String yaml() {
        return document(this);
    }

    /** A configuration document whose {@code providers} list holds these entries, in this order. */
    static String document(KvmTestConfig... entries) {
        StringBuilder yaml = new StringBuilder("providers:\n");
        for (KvmTestConfig entry : entries) {
            entry.appendEntry(yaml);
        }
        return yaml.toString();
    }

    private void appendEntry(StringBuilder yaml) {
        yaml.append("  - name: ").append(entry).append('\n');
        yaml.append("    type: ").append(type).append('\n');
        if (sshConfigAlias == null) {
            yaml.append("    sshKeyFile: ").append(quoted(keyFile.toString())).append('\n');
            yaml.append("    knownHostsFile: ").append(quoted(knownHostsFile.toString())).append('\n');
        } else {
            yaml.append("    sshConfigFile: ").append(quoted(sshConfigFile.toString())).append('\n');
        }
        yaml.append("    handshakeTimeout: ").append(handshakeTimeout.toMillis()).append("ms\n");
        yaml.append("    keepaliveInterval: 15s\n");
        yaml.append("    hosts:\n");
        appendHost(yaml, HOST, port, stack.libvirtSocket().toString());
        if (secondHost) {
            appendHost(yaml, HOST2, stack.secondHostSshPort(), stack.secondHostLibvirtSocket().toString());
        }
        yaml.append("    machineTypes:\n");
        machineTypes.forEach((key, mapping) -> yaml.append("      ").append(key).append(": ").append(mapping).append('\n'));
        yaml.append("    images:\n");
        images.forEach((key, mapping) -> yaml.append("      ").append(key).append(": ").append(mapping).append('\n'));
        extraSettings.forEach((key, value) -> yaml.append("    ").append(key).append(": ").append(value).append('\n'));
    }

    private void appendHost(StringBuilder yaml, String name, int sshPort, String socket) {
        yaml.append("      - name: ").append(name).append('\n');
        Map<String, String> host = new LinkedHashMap<>();
        if (sshConfigAlias == null) {
            host.put("address", quoted(stack.value("EGRESS_TEST_SSH_HOST")));
            host.put("port", Integer.toString(sshPort));
            host.put("user", quoted(stack.value("EGRESS_TEST_SSH_USER")));
        } else {
            host.put("address", quoted(sshConfigAlias));
        }
        host.put("socket", quoted(socket));
        host.put("pool", quoted(stack.pool()));
        host.put("bridge", quoted(stack.bridge()));
        host.put("domainType", stack.value("EGRESS_TEST_DOMAIN_TYPE"));
        host.putAll(extraHostSettings);
        host.putAll(oneHostSettings.getOrDefault(name, Map.of()));
        host.forEach((key, value) -> yaml.append("        ").append(key).append(": ").append(value).append('\n'));
    }

    /** The names of the images, in configuration order. */
    List<String> imageKeys() {
        return List.copyOf(images.keySet());
    }

    private static String kvmImage(String url) {
        return "{url: " + quoted(url) + ", format: qcow2}";
    }

    private static String kvm2Image(String url, String sha256) {
        return "{url: " + quoted(url) + (sha256 == null ? "" : ", sha256: " + sha256) + ", firmware: bios}";
    }

    /**
     * The base volume a {@code kvm} entry keeps for qcow2 image {@code key} served at {@code url}:
     * {@code KEY.SOURCE.base.qcow2}, SOURCE being the source's identity tag (the URL as published).
     */
    static String kvmBase(String key, String url) {
        return key + "." + ImageSource.builder(url).format(DiskFormat.QCOW2).compression(Compression.NONE)
                .archive(Archive.NONE).build().identityTag() + ".base.qcow2";
    }

    /**
     * The base volume a {@code kvm2} entry keeps for catalogue image {@code key} at {@code url}, a
     * qcow2 file whose compression and packaging its suffix implies (none declared):
     * {@code ENTRY+KEY.SOURCE.base.qcow2}.
     */
    static String kvm2Base(String entry, String key, String url) {
        return entry + "+" + key + "." + ImageSource.builder(url).build().identityTag() + ".base.qcow2";
    }

    /** The URL of the stack's small qcow2 image on its HTTP server. */
    String stackImageUrl() {
        return stack.value("EGRESS_TEST_HTTP_URL") + "/" + stack.value("EGRESS_TEST_IMAGE_QCOW2");
    }

    /** The lowercase hex sha256 of a file. */
    static String sha256(Path file) {
        try {
            return TestBytes.sha256(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    /** A YAML double-quoted scalar; the stack's values hold no quotes or backslashes, but say so. */
    static String quoted(String value) {
        if (value.contains("\"") || value.contains("\\")) {
            throw new IllegalArgumentException("unexpected quote or backslash in " + value);
        }
        return '"' + value + '"';
    }
}
