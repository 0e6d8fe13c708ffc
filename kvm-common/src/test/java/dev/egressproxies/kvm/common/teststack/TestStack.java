package dev.egressproxies.kvm.common.teststack;

import static org.junit.jupiter.api.Assertions.fail;

import dev.egressproxies.kvm.common.xml.DomainType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The real hypervisor stack of {@code scripts/test-stack.sh} on this machine, as its {@code env}
 * file describes it: libvirtd, the dir pool, the bridge, the test images; and the second,
 * independent libvirtd with its own sshd and pool, for entries with two hosts; and the etcd members
 * of the replicated serve's tests.
 *
 * <p>The first use in a test JVM runs {@code scripts/test-stack.sh up} (idempotent; a few seconds
 * when the stack already runs, most of them checking each sshd), so {@code ./mvnw verify} needs nothing started by hand; it
 * needs root. A stack that cannot be brought up fails the test rather than skipping it, with the
 * script's output: an integration test that silently does not run proves nothing.
 *
 * <p>Published in kvm-common's test jar, so it-tests use the same stack description.
 */
public final class TestStack {
    /** Every domain and volume the tests make starts with this; {@code test-stack.sh down} removes domains by it. */
    public static final String NAME_PREFIX = "egress-it-";

    private static TestStack loaded;

    private final Map<String, String> values;

    private TestStack(Map<String, String> values) {
        this.values = values;
    }

    /**
     * The stack, brought up on first use and described by {@code $EGRESS_TEST_STACK_DIR/env}
     * (default {@code /tmp/egress-test-stack/env}).
     */
    public static synchronized TestStack load() {
        if (loaded == null) {
            StackScript.run("up");
            loaded = new TestStack(read(envFile()));
        }
        return loaded;
    }

    /** A fresh name for something a test makes: the prefix, {@code what}, and random hex. */
    public static String uniqueName(String what) {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return NAME_PREFIX + "kvm-common-" + what + "-" + HexFormat.of().formatHex(random);
    }

    public String value(String key) {
        String value = values.get(key);
        if (value == null || value.isBlank()) {
            fail(envFile() + " has no " + key + "; run 'scripts/test-stack.sh up' (as root) again");
        }
        return value;
    }

    public String pool() {
        return value("EGRESS_TEST_POOL");
    }

    public Path poolFolder() {
        return Path.of(value("EGRESS_TEST_POOL_DIR"));
    }

    public String bridge() {
        return value("EGRESS_TEST_BRIDGE");
    }

    public DomainType domainType() {
        return DomainType.parse(value("EGRESS_TEST_DOMAIN_TYPE"));
    }

    public Path libvirtSocket() {
        return Path.of(value("EGRESS_TEST_LIBVIRT_SOCKET"));
    }

    public Path qcow2Image() {
        return Path.of(value("EGRESS_TEST_IMAGES_DIR")).resolve(value("EGRESS_TEST_IMAGE_QCOW2"));
    }

    /** The SSH port of the second hypervisor's sshd. */
    public int secondHostSshPort() {
        return Integer.parseInt(value("EGRESS_TEST_HOST2_SSH_PORT"));
    }

    /** The second hypervisor's libvirt socket, as its host setting {@code socket} names it. */
    public Path secondHostLibvirtSocket() {
        return Path.of(value("EGRESS_TEST_HOST2_LIBVIRT_SOCKET"));
    }

    /** The URI through which {@code virsh} on this machine reaches the second hypervisor. */
    public String secondHostUri() {
        return value("EGRESS_TEST_HOST2_LIBVIRT_URI");
    }

    /** The running libvirtd's process ID: its pid file, which is current even after a restart. */
    public long libvirtdPid() {
        Path pidFile = Path.of("/run/libvirtd.pid");
        try {
            if (Files.isRegularFile(pidFile)) {
                return Long.parseLong(Files.readString(pidFile).strip());
            }
        } catch (IOException | NumberFormatException e) {
            // Falls back to what the stack recorded when it started libvirtd.
        }
        return Long.parseLong(value("EGRESS_TEST_LIBVIRTD_PID"));
    }

    private static Path envFile() {
        String folder = System.getenv().getOrDefault("EGRESS_TEST_STACK_DIR", "/tmp/egress-test-stack");
        return Path.of(folder, "env");
    }

    private static Map<String, String> read(Path file) {
        if (!Files.isRegularFile(file)) {
            fail("scripts/test-stack.sh up ran but left no " + file + "; run it by hand (as root) to see why");
        }
        try {
            Map<String, String> values = new HashMap<>();
            for (String line : Files.readAllLines(file)) {
                int equals = line.indexOf('=');
                if (equals > 0 && !line.startsWith("#")) {
                    values.put(line.substring(0, equals).strip(), line.substring(equals + 1).strip());
                }
            }
            return values;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }
}
