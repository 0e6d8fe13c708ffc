package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.StackScript;

/**
 * The stack's sshds, killed and revived through {@code scripts/test-stack.sh}: {@code kill-sshd}
 * SIGKILLs the listener and every connection process (so open tunnels drop as abruptly as with a
 * crashed host), {@code up} starts it again on the same port with the same host key.
 */
final class StackSshd {
    private StackSshd() {
    }

    /** Kills sshd and its connections. */
    static void kill() {
        StackScript.run("kill-sshd");
    }

    /** Kills the sshd of host {@code host} ({@link KvmTestConfig#HOST} or {@link KvmTestConfig#HOST2}) and its connections. */
    static void kill(String host) {
        switch (host) {
            case KvmTestConfig.HOST -> kill();
            case KvmTestConfig.HOST2 -> StackScript.run("kill-sshd", "second");
            default -> throw new IllegalArgumentException("'" + host + "' is not a host of the stack");
        }
    }

    /** Kills the jump host's sshd (in the stack's network namespace) and its connections. */
    static void killJumpHost() {
        StackScript.run("kill-sshd", "jump");
    }

    /** Starts sshd again (and repairs anything else of the stack); idempotent. */
    static void revive() {
        StackScript.run("up");
    }
}
