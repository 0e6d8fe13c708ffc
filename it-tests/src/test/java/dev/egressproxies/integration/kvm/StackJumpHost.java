package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The stack's hypervisor behind its jump host, as an OpenSSH user reaches it: a Host alias in an
 * ssh_config whose ProxyJump names the jump host (in the stack's network namespace), with the
 * stack's user, key and known_hosts for both hops.
 */
final class StackJumpHost {
    /** The alias of the hypervisor behind the jump host in {@link #sshConfig}. */
    static final String ALIAS = "egress-behind-jump";

    private StackJumpHost() {
    }

    /** Writes that ssh_config to {@code file}. */
    static Path sshConfig(TestStack stack, Path file) throws IOException {
        return Files.writeString(file, String.join("\n",
                "Host egress-jump-host",
                "  HostName " + stack.value("EGRESS_TEST_JUMP_HOST"),
                "  Port " + stack.value("EGRESS_TEST_JUMP_SSH_PORT"),
                "Host " + ALIAS,
                "  HostName " + stack.value("EGRESS_TEST_BEHIND_JUMP_HOST"),
                "  Port " + stack.value("EGRESS_TEST_BEHIND_JUMP_SSH_PORT"),
                "  ProxyJump egress-jump-host",
                "Host *",
                "  User " + stack.value("EGRESS_TEST_SSH_USER"),
                "  IdentityFile " + stack.value("EGRESS_TEST_SSH_KEY"),
                "  UserKnownHostsFile " + stack.value("EGRESS_TEST_KNOWN_HOSTS"),
                ""));
    }
}
