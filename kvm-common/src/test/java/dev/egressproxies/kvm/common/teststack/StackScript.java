package dev.egressproxies.kvm.common.teststack;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs {@code scripts/test-stack.sh}, found by walking up from the working directory (a module's
 * folder under Maven), so every module's tests reach the same script.
 */
public final class StackScript {
    private StackScript() {
    }

    /** Runs the script with arguments and returns its output; fails the test with it otherwise. */
    public static String run(String... arguments) {
        String[] command = new String[arguments.length + 1];
        command[0] = script().toString();
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        return Commands.run(120, command);
    }

    private static Path script() {
        for (Path folder = Path.of("").toAbsolutePath(); folder != null; folder = folder.getParent()) {
            Path candidate = folder.resolve("scripts").resolve("test-stack.sh");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("scripts/test-stack.sh not found above " + Path.of("").toAbsolutePath());
    }
}
