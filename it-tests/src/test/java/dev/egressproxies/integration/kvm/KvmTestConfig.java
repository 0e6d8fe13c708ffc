package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.TestStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration of a {@code kvm} entry on the test stack, written as the YAML an operator
 * would write, from the stack's {@code env} file: one host {@value #HOST} (sshd on 127.0.0.1, the
 * stack's pool and bridge), machine type {@value #MACHINE_TYPE}, image {@value #IMAGE} (the stack's
 * small qcow2 over its loopback HTTP server). Tests change the SSH files or add images.
 */
final class KvmTestConfig {
    /** The entry's name. */
    static final String ENTRY = "kvm-test";
    /** The only host, and so the only zone. */
    static final String HOST = "local";
    /** The machine type every test uses. */
    static final String MACHINE_TYPE = "small";
    /** The image every test uses; its base volume {@code tiny.base.qcow2} stays cached in the pool. */
    static final String IMAGE = "tiny";

    private final TestStack stack;
    private Path keyFile;
    private Path knownHostsFile;
    private int port;
    private Duration handshakeTimeout = Duration.ofSeconds(30);
    private final Map<String, String> images = new LinkedHashMap<>();

    private KvmTestConfig(TestStack stack) {
        this.stack = stack;
        this.keyFile = Path.of(stack.value("EGRESS_TEST_SSH_KEY"));
        this.knownHostsFile = Path.of(stack.value("EGRESS_TEST_KNOWN_HOSTS"));
        this.port = Integer.parseInt(stack.value("EGRESS_TEST_SSH_PORT"));
        images.put(IMAGE, stack.value("EGRESS_TEST_HTTP_URL") + "/" + stack.value("EGRESS_TEST_IMAGE_QCOW2"));
    }

    /** The configuration that works: the stack's client key and known_hosts. */
    static KvmTestConfig standard() {
        return new KvmTestConfig(TestStack.load());
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

    /** Limits connecting and logging in to the host. */
    KvmTestConfig handshakeTimeout(Duration timeout) {
        this.handshakeTimeout = timeout;
        return this;
    }

    /** Adds a qcow2 image served from {@code url} (a loopback URL). */
    KvmTestConfig image(String key, String url) {
        images.put(key, url);
        return this;
    }

    /** The private key file the entry logs in with. */
    Path keyFile() {
        return keyFile;
    }

    /** The configuration document, with a {@code providers} list holding the one entry. */
    String yaml() {
        StringBuilder yaml = new StringBuilder();
        yaml.append("providers:\n");
        yaml.append("  - name: ").append(ENTRY).append('\n');
        yaml.append("    type: kvm\n");
        yaml.append("    sshKeyFile: ").append(quoted(keyFile.toString())).append('\n');
        yaml.append("    knownHostsFile: ").append(quoted(knownHostsFile.toString())).append('\n');
        yaml.append("    handshakeTimeout: ").append(handshakeTimeout.toMillis()).append("ms\n");
        yaml.append("    keepaliveInterval: 15s\n");
        yaml.append("    hosts:\n");
        yaml.append("      - name: ").append(HOST).append('\n');
        yaml.append("        address: ").append(quoted(stack.value("EGRESS_TEST_SSH_HOST"))).append('\n');
        yaml.append("        port: ").append(port).append('\n');
        yaml.append("        user: ").append(quoted(stack.value("EGRESS_TEST_SSH_USER"))).append('\n');
        yaml.append("        socket: ").append(quoted(stack.libvirtSocket().toString())).append('\n');
        yaml.append("        pool: ").append(quoted(stack.pool())).append('\n');
        yaml.append("        bridge: ").append(quoted(stack.bridge())).append('\n');
        yaml.append("        domainType: ").append(stack.value("EGRESS_TEST_DOMAIN_TYPE")).append('\n');
        yaml.append("    machineTypes:\n");
        yaml.append("      ").append(MACHINE_TYPE).append(": {vcpus: 1, memoryMiB: 128}\n");
        yaml.append("    images:\n");
        images.forEach((key, url) -> yaml.append("      ").append(key).append(": {url: ").append(quoted(url))
                .append(", format: qcow2}\n"));
        return yaml.toString();
    }

    /** The names of the images, in configuration order. */
    List<String> imageKeys() {
        return List.copyOf(images.keySet());
    }

    /** A YAML double-quoted scalar; the stack's values hold no quotes or backslashes, but say so. */
    private static String quoted(String value) {
        if (value.contains("\"") || value.contains("\\")) {
            throw new IllegalArgumentException("unexpected quote or backslash in " + value);
        }
        return '"' + value + '"';
    }
}
