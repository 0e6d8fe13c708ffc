package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.util.List;

/**
 * The stack's two libvirtds by the host names {@link KvmTestConfig} gives them: {@value
 * KvmTestConfig#HOST} is the machine's libvirtd, {@value KvmTestConfig#HOST2} the second one, each
 * reached by the native {@code virsh} for what tests do behind a backend's back.
 */
final class StackHypervisors {
    private StackHypervisors() {
    }

    /** virsh against the libvirtd of host {@code host}. */
    static Virsh virsh(TestStack stack, String host) {
        return switch (host) {
            case KvmTestConfig.HOST -> Virsh.on(Virsh.SYSTEM_URI);
            case KvmTestConfig.HOST2 -> Virsh.on(stack.secondHostUri());
            default -> throw new IllegalArgumentException("'" + host + "' is not a host of the stack ("
                    + KvmTestConfig.HOST + ", " + KvmTestConfig.HOST2 + ")");
        };
    }

    /** virsh against each libvirtd of the stack. */
    static List<Virsh> all(TestStack stack) {
        return List.of(virsh(stack, KvmTestConfig.HOST), virsh(stack, KvmTestConfig.HOST2));
    }

    /**
     * Removes from both hosts every domain and volume whose name starts with one of {@code
     * prefixes}: an entry's instances, bases, claims and cordons all start with its name.
     */
    static void removeNamed(TestStack stack, String... prefixes) {
        for (Virsh virsh : all(stack)) {
            for (String prefix : prefixes) {
                virsh.removeNamed(stack.pool(), prefix);
            }
        }
    }

    /** The host part of a provider ID {@code HOST/NAME}. */
    static String hostOf(String id) {
        int slash = id.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("'" + id + "' is not an ID HOST/NAME");
        }
        return id.substring(0, slash);
    }

    /** The name part of a provider ID {@code HOST/NAME}. */
    static String nameOf(String id) {
        hostOf(id);
        return id.substring(id.indexOf('/') + 1);
    }
}
