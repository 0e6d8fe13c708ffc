package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.Commands;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the repository's {@code scripts/*.sh}, found by walking up from the working directory (the
 * module's folder under Maven).
 */
final class Scripts {
    private Scripts() {
    }

    /** Runs {@code scripts/NAME} with arguments and returns its output; fails the test with it otherwise. */
    static String run(long timeoutSeconds, String name, String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = find(name).toString();
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        return Commands.run(timeoutSeconds, command);
    }

    /** The path of {@code scripts/NAME}. */
    static Path find(String name) {
        for (Path folder = Path.of("").toAbsolutePath(); folder != null; folder = folder.getParent()) {
            Path candidate = folder.resolve("scripts").resolve(name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("scripts/" + name + " not found above " + Path.of("").toAbsolutePath());
    }
}
