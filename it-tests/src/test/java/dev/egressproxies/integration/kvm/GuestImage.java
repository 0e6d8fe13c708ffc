package dev.egressproxies.integration.kvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The small Debian guest image of {@code scripts/build-test-image.sh} (cloud-init with NoCloud, the
 * QEMU guest agent, UEFI boot), cached outside the repository: the script builds it on first use
 * (minutes, from the machine's own package mirror) and answers from its cache afterwards.
 *
 * @param file   the compressed qcow2
 * @param sha256 its sha256, as the script recorded it next to the file
 */
record GuestImage(Path file, String sha256) {
    /** A cold build takes 4 to 10 minutes on two cores; a cached one answers at once. */
    private static final long BUILD_TIMEOUT_SECONDS = 30 * 60;

    /** The cached image, built first when the recipe changed or nothing is cached yet. */
    static GuestImage buildOrReuse() {
        String output = Scripts.run(BUILD_TIMEOUT_SECONDS, "build-test-image.sh", "build");
        // What the script did (built, or found cached) and how long it took.
        System.out.print(output);
        List<String> lines = output.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
        Path file = Path.of(lines.get(lines.size() - 1));
        return new GuestImage(file, recordedSha256(file));
    }

    private static String recordedSha256(Path file) {
        Path sums = file.resolveSibling("SHA256SUMS");
        try {
            for (String line : Files.readAllLines(sums)) {
                String[] fields = line.split("\\s+\\*?");
                if (fields.length == 2 && fields[1].equals(file.getFileName().toString())) {
                    return fields[0];
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(sums + ": run scripts/build-test-image.sh again", e);
        }
        throw new AssertionError(sums + " lists no " + file.getFileName() + ": run scripts/build-test-image.sh again");
    }
}
