package dev.egressproxies.kvm.common.teststack;

import java.util.Arrays;
import java.util.List;

/**
 * The native {@code virsh} against the local libvirtd (or, through {@link #on}, the stack's second
 * one), for what tests do behind a backend's back: plant an unmanaged domain, stop one, list
 * leftovers.
 */
public final class Virsh {
    /** The machine's libvirtd. */
    public static final String SYSTEM_URI = "qemu:///system";

    private final String uri;

    private Virsh(String uri) {
        this.uri = uri;
    }

    /** virsh against the libvirtd at {@code uri}, such as {@link TestStack#secondHostUri()}. */
    public static Virsh on(String uri) {
        return new Virsh(uri);
    }

    /** Runs {@code virsh -q -c qemu:///system ARGUMENTS} and returns its output. */
    public static String run(String... arguments) {
        return on(SYSTEM_URI).virsh(arguments);
    }

    /** The names of every defined domain starting with {@code prefix}. */
    public static List<String> domains(String prefix) {
        return on(SYSTEM_URI).domainsNamed(prefix);
    }

    /** The names of every volume in the pool starting with {@code prefix}. */
    public static List<String> volumes(String pool, String prefix) {
        return on(SYSTEM_URI).volumesNamed(pool, prefix);
    }

    /** Runs {@code virsh -q -c URI ARGUMENTS} and returns its output. */
    public String virsh(String... arguments) {
        String[] command = new String[arguments.length + 4];
        command[0] = "virsh";
        command[1] = "-q";
        command[2] = "-c";
        command[3] = uri;
        System.arraycopy(arguments, 0, command, 4, arguments.length);
        return Commands.run(30, command);
    }

    /** The names of every domain defined there starting with {@code prefix}. */
    public List<String> domainsNamed(String prefix) {
        return names(virsh("list", "--all", "--name")).stream().filter(name -> name.startsWith(prefix)).toList();
    }

    /** The names of every volume in the pool there starting with {@code prefix}. */
    public List<String> volumesNamed(String pool, String prefix) {
        return virsh("vol-list", pool).lines().map(String::trim).filter(line -> !line.isEmpty())
                .map(line -> line.split("\\s+")[0]).filter(name -> name.startsWith(prefix)).toList();
    }

    /**
     * Removes every domain (stopped first) and every volume of {@code pool} whose name starts with
     * {@code prefix}: what a test's entry made there.
     */
    public void removeNamed(String pool, String prefix) {
        domainsNamed(prefix).forEach(this::removeDomain);
        for (String volume : volumesNamed(pool, prefix)) {
            virsh("vol-delete", "--pool", pool, volume);
        }
    }

    /** Stops the domain if it runs and undefines it, leaving its volumes. */
    public void removeDomain(String domain) {
        if (virsh("list", "--state-running", "--state-paused", "--name").lines().anyMatch(domain::equals)) {
            virsh("destroy", domain);
        }
        virsh("undefine", domain, "--managed-save", "--snapshots-metadata", "--nvram");
    }

    /** The connection URI. */
    public String uri() {
        return uri;
    }

    private static List<String> names(String output) {
        return Arrays.stream(output.split("\n")).map(String::trim).filter(name -> !name.isEmpty()).toList();
    }
}
