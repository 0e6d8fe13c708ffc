package dev.egressproxies.kvm.common.teststack;

import java.util.Arrays;
import java.util.List;

/**
 * The native {@code virsh} against the local libvirtd, for what tests do behind a backend's back:
 * plant an unmanaged domain, stop one, list leftovers.
 */
public final class Virsh {
    private Virsh() {
    }

    /** Runs {@code virsh -q -c qemu:///system ARGUMENTS} and returns its output. */
    public static String run(String... arguments) {
        String[] command = new String[arguments.length + 4];
        command[0] = "virsh";
        command[1] = "-q";
        command[2] = "-c";
        command[3] = "qemu:///system";
        System.arraycopy(arguments, 0, command, 4, arguments.length);
        return Commands.run(30, command);
    }

    /** The names of every defined domain starting with {@code prefix}. */
    public static List<String> domains(String prefix) {
        return names(run("list", "--all", "--name")).stream().filter(name -> name.startsWith(prefix)).toList();
    }

    /** The names of every volume in the pool starting with {@code prefix}. */
    public static List<String> volumes(String pool, String prefix) {
        return run("vol-list", pool).lines().map(String::trim).filter(line -> !line.isEmpty())
                .map(line -> line.split("\\s+")[0]).filter(name -> name.startsWith(prefix)).toList();
    }

    private static List<String> names(String output) {
        return Arrays.stream(output.split("\n")).map(String::trim).filter(name -> !name.isEmpty()).toList();
    }
}
