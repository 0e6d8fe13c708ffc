package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import java.util.function.Supplier;

/**
 * libvirt calls named as steps, so a failure says what was being done ("creating overlay volume
 * proxy-1.qcow2"); it stays a {@link LibvirtException} with the same code, source and errno.
 */
public final class LibvirtSteps {
    private LibvirtSteps() {
    }

    /** Returns what {@code work} returns; a libvirt failure is rethrown prefixed by {@code description}. */
    public static <T> T step(String description, Supplier<T> work) {
        try {
            return work.get();
        } catch (LibvirtException failure) {
            throw failure.during(description);
        }
    }

    /** Runs {@code work} as {@link #step} does. */
    public static void run(String description, Runnable work) {
        step(description, () -> {
            work.run();
            return null;
        });
    }
}
