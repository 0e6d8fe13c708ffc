package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code egressctl check} tells about each host whose SSH access is set up wrong, as a user
 * reads it: one entry whose hosts are ssh_config aliases, each broken one way, and each check's
 * detail names the cause and the one-line fix.
 */
@Tag("integration")
class SshDiagnosisEndToEndTest {
    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    @Test
    void checkNamesTheCauseAndTheFixForEachWayOfGettingSshWrong() throws Exception {
        String port = stack.value("EGRESS_TEST_SSH_PORT");
        Path emptyKnownHosts = Files.writeString(temp.resolve("empty_known_hosts"), "");
        Path refusedKey = temp.resolve("refused_ed25519");
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", refusedKey.toString());
        String refusedFingerprint = run("ssh-keygen", "-l", "-f", refusedKey + ".pub").split(" ")[1];
        String hostFingerprint = run("ssh-keygen", "-l", "-f",
                stack.value("EGRESS_TEST_STACK_DIR") + "/ssh/host_ed25519_key.pub").split(" ")[1];
        String wrongFingerprint = run("ssh-keygen", "-l", "-f",
                stack.value("EGRESS_TEST_STACK_DIR") + "/ssh/other_host_ed25519_key.pub").split(" ")[1];
        Path socketFolder = Files.createDirectories(temp.resolve("restricted"));
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(socketFolder, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path restrictedSocket = socketFolder.resolve("libvirt-sock");

        // OpenSSH takes each option's first value, so the blocks of single hosts come first.
        Path sshConfig = Files.writeString(temp.resolve("ssh_config"), String.join("\n",
                "Host unknown-key",
                "  UserKnownHostsFile " + emptyKnownHosts,
                "Host changed-key",
                "  UserKnownHostsFile " + stack.value("EGRESS_TEST_WRONG_KNOWN_HOSTS"),
                "Host refused-key",
                "  IdentityFile " + refusedKey,
                "Host no-access",
                "  User " + stack.value("EGRESS_TEST_UNPRIVILEGED_USER"),
                "Host no-streamlocal",
                "  Port " + stack.value("EGRESS_TEST_NO_STREAMLOCAL_SSH_PORT"),
                "Host no-polkit",
                "  User " + stack.value("EGRESS_TEST_UNPRIVILEGED_USER"),
                "Host unknown-key changed-key no-access no-streamlocal no-polkit",
                "  IdentityFile " + stack.value("EGRESS_TEST_SSH_KEY"),
                "Host *",
                "  HostName 127.0.0.1",
                "  Port " + port,
                "  User root",
                "  UserKnownHostsFile " + stack.value("EGRESS_TEST_KNOWN_HOSTS"),
                ""));
        Map<String, String> sockets = new LinkedHashMap<>();
        // libvirtd's default socket lets any login in and asks polkit about each that is not root;
        // the stack, like a container host, runs no system D-Bus, so polkit cannot answer.
        for (String alias : new String[] {"unknown-key", "changed-key", "refused-key", "no-streamlocal", "no-polkit"}) {
            sockets.put(alias, stack.libvirtSocket().toString());
        }
        sockets.put("no-access", restrictedSocket.toString());

        try (ServerSocketChannel restricted = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            restricted.bind(UnixDomainSocketAddress.of(restrictedSocket));
            Files.setPosixFilePermissions(restrictedSocket, PosixFilePermissions.fromString("rw-rw----"));
            GroupPrincipal libvirt = restrictedSocket.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName("libvirt");
            Files.getFileAttributeView(restrictedSocket, PosixFileAttributeView.class).setGroup(libvirt);

            Map<String, String> details = check(sshConfig, sockets);

            assertThat(details.get("unknown-key")).contains("has no entry in known_hosts file " + emptyKnownHosts,
                    "'ssh-keyscan -p " + port + " 127.0.0.1 >> " + emptyKnownHosts + "'", hostFingerprint);
            assertThat(details.get("changed-key")).contains("presented key ssh-ed25519 " + hostFingerprint,
                    "records ssh-ed25519 " + wrongFingerprint, "ssh-keygen -R [127.0.0.1]:" + port);
            assertThat(details.get("refused-key")).contains("did not accept any key offered for user root",
                    refusedFingerprint, "authorized_keys");
            assertThat(details.get("no-access")).contains("user " + stack.value("EGRESS_TEST_UNPRIVILEGED_USER")
                    + " may not use the socket " + restrictedSocket, "'usermod -aG libvirt "
                    + stack.value("EGRESS_TEST_UNPRIVILEGED_USER") + "' there");
            assertThat(details.get("no-streamlocal")).contains("(sshd forwards no unix sockets)");
            // The login comes from ssh_config, which the entry does not name.
            String unprivileged = stack.value("EGRESS_TEST_UNPRIVILEGED_USER");
            assertThat(details.get("no-polkit")).contains("refused the connection",
                    "polkit whether a login other than root (here " + unprivileged + ")",
                    "'usermod -aG libvirt " + unprivileged + "'",
                    "auth_unix_rw = \"none\"").doesNotContain("retry");
        }
    }

    /** The detail of each host's SSH check, by host name. */
    private Map<String, String> check(Path sshConfig, Map<String, String> sockets) throws IOException {
        StringBuilder yaml = new StringBuilder("providers:\n  - name: diagnosis\n    type: kvm2\n")
                .append("    sshConfigFile: \"").append(sshConfig).append("\"\n")
                .append("    handshakeTimeout: 20s\n")
                .append("    machineTypes:\n      small: {vcpus: 1, memoryMiB: 128}\n")
                .append("    hosts:\n");
        sockets.forEach((alias, socket) -> yaml.append("      - {name: ").append(alias).append(", address: ")
                .append(alias).append(", socket: \"").append(socket).append("\", pool: ").append(stack.pool())
                .append(", bridge: ").append(stack.bridge()).append(", domainType: ")
                .append(stack.value("EGRESS_TEST_DOMAIN_TYPE")).append("}\n"));
        Path work = Files.createDirectories(temp.resolve("work"));
        Path config = Files.writeString(work.resolve("egress.yaml"), yaml.toString());
        EgressctlProcess.Result check = new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", config.toString()).run("check", "-o", "json");
        assertThat(check.exitCode()).as(check.toString()).isNotZero();
        Map<String, String> details = SshCheckDetails.of(check);
        assertThat(details).as(check.toString()).containsOnlyKeys(sockets.keySet());
        return details;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
        return out;
    }
}
