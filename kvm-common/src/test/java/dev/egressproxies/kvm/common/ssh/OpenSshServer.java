package dev.egressproxies.kvm.common.ssh;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A private OpenSSH server on 127.0.0.1 for one test class: its own host keys, config, port and
 * authorized_keys, started before the class's tests and stopped after them. It is independent of
 * the project's libvirt test stack, and needs root (sshd must switch users) and openssh-server.
 *
 * <p>Register it with {@code @RegisterExtension static final OpenSshServer SSHD = new
 * OpenSshServer();}, or start and close one by hand for a single test. Tests may freeze, kill and
 * restart it.
 */
final class OpenSshServer implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
    static final String HOST = "127.0.0.1";
    private static final Path SSHD = Path.of("/usr/sbin/sshd");
    /** OpenSSH's privilege separation folder; a fresh machine may lack it. */
    private static final Path PRIVILEGE_SEPARATION_DIRECTORY = Path.of("/run/sshd");

    private final Map<String, String> options = new LinkedHashMap<>();
    private final List<Path> hostKeys = new ArrayList<>();
    private Path directory;
    private int port;
    private Process process;

    OpenSshServer() {
        options.put("ListenAddress", HOST);
        options.put("PidFile", "none");
        options.put("StrictModes", "no");
        options.put("UsePAM", "no");
        options.put("PasswordAuthentication", "no");
        options.put("KbdInteractiveAuthentication", "no");
        options.put("PubkeyAuthentication", "yes");
        options.put("PermitRootLogin", "prohibit-password");
        options.put("AllowTcpForwarding", "yes");
        options.put("AllowStreamLocalForwarding", "yes");
        options.put("MaxStartups", "100");
        options.put("MaxSessions", "100");
        options.put("ClientAliveInterval", "0");
        options.put("LogLevel", "VERBOSE");
        hostKeys.add(TestKeys.get().hostEd25519());
    }

    /** Returns this server with an sshd_config option set (before it starts). */
    OpenSshServer withOption(String name, String value) {
        options.put(name, value);
        return this;
    }

    /** Returns this server presenting one more host key (before it starts). */
    OpenSshServer withHostKey(Path privateKey) {
        hostKeys.add(privateKey);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        close();
    }

    /** Stops sshd and deletes its folder; for servers a test starts by hand. */
    @Override
    public void close() throws IOException {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (directory != null) {
                TestKeys.deleteQuietly(directory);
            }
        }
    }

    /** Starts sshd (again, on the same port after {@link #kill()}) and waits until it accepts connections. */
    void start() throws Exception {
        if (!Files.isExecutable(SSHD)) {
            fail("the SSH tunnel tests need OpenSSH's server at " + SSHD + ": install it with"
                    + " 'apt-get install -y --no-install-recommends openssh-server'");
        }
        if (directory == null) {
            directory = Files.createTempDirectory("egress-test-sshd-");
            port = freePort();
            Files.writeString(directory.resolve("authorized_keys"), TestKeys.get().authorizedKeys());
            Files.writeString(directory.resolve("known_hosts"), knownHostsLine(hostKeys.get(0)));
            Files.writeString(directory.resolve("wrong_known_hosts"),
                    knownHostsLine(TestKeys.get().otherHostEd25519()));
            Files.writeString(directory.resolve("sshd_config"), config());
        }
        Files.createDirectories(PRIVILEGE_SEPARATION_DIRECTORY);
        process = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", directory.resolve("sshd_config").toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("sshd.log").toFile()))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!accepts()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly().waitFor();
                fail("sshd did not start listening on " + HOST + ":" + port + "; its log:\n" + log());
            }
            Thread.sleep(20);
        }
    }

    /** Stops sshd and every connection it serves. */
    void stop() throws IOException, InterruptedException {
        signalAll("KILL");
        if (process != null) {
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Kills sshd and its per-connection processes at once, as a crash or power loss would. */
    void kill() throws Exception {
        stop();
    }

    /** Freezes sshd and its per-connection processes (SIGSTOP): the host stops answering, nothing closes. */
    void suspend() throws Exception {
        signalAll("STOP");
    }

    /** Undoes {@link #suspend()}. */
    void resume() throws Exception {
        signalAll("CONT");
    }

    /** Returns the pid of the listening sshd. */
    long pid() {
        return process.pid();
    }

    int port() {
        return port;
    }

    String user() {
        return System.getProperty("user.name");
    }

    /** Returns a known_hosts file with this server's host key under {@code [127.0.0.1]:port}. */
    Path knownHosts() {
        return directory.resolve("known_hosts");
    }

    /** Returns a known_hosts file with another key for this server's name. */
    Path wrongKnownHosts() {
        return directory.resolve("wrong_known_hosts");
    }

    /** Adds the public key of {@code privateKey} to the authorized keys; sshd reads them at each login. */
    void authorize(Path privateKey) throws Exception {
        Files.writeString(directory.resolve("authorized_keys"), TestKeys.publicKeyLine(privateKey) + "\n",
                StandardOpenOption.APPEND);
    }

    /** Returns a known_hosts file with only {@code lines}. */
    Path knownHostsWith(String name, String... lines) throws IOException {
        return Files.writeString(directory.resolve(name), String.join("\n", lines) + "\n");
    }

    /** Returns the {@code [127.0.0.1]:port type key} line for the host key {@code privateKey}. */
    String knownHostsLine(Path privateKey) throws Exception {
        return "[" + HOST + "]:" + port + " " + TestKeys.publicKeyLine(privateKey) + "\n";
    }

    /** Returns settings for a tunnel to this server with {@code key}, checked against {@link #knownHosts()}. */
    SshTunnelSettings settings(Path key, String remoteSocketPath) {
        return SshTunnelSettings.of(HOST, port, user(), key, HostKeyPolicy.knownHosts(knownHosts()), remoteSocketPath);
    }

    /** Returns what sshd logged so far. */
    String log() throws IOException {
        Path log = directory.resolve("sshd.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    private String config() {
        StringBuilder config = new StringBuilder();
        config.append("Port ").append(port).append('\n');
        hostKeys.forEach(key -> config.append("HostKey ").append(key).append('\n'));
        config.append("AuthorizedKeysFile ").append(directory.resolve("authorized_keys")).append('\n');
        options.forEach((name, value) -> config.append(name).append(' ').append(value).append('\n'));
        return config.toString();
    }

    /** Sends {@code signal} to the listener and every process it forked (one or two per connection). */
    private void signalAll(String signal) throws IOException, InterruptedException {
        if (process == null) {
            return;
        }
        List<Long> pids = new ArrayList<>();
        pids.add(process.pid());
        process.toHandle().descendants().forEach(child -> pids.add(child.pid()));
        Command.signal(signal, pids);
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }
}
