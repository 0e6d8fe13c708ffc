package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Overlay and seed names tell their entry and instance apart, and never look like a base volume. */
class InstanceVolumeNamesTest {
    private static final String ENTRY_FIRST = "ABCXYZabcxyz019";
    private static final String ENTRY_REST = ENTRY_FIRST + "._-";
    private static final String LABEL_EDGE = "abcxyz0189";
    private static final String LABEL_INNER = LABEL_EDGE + "-";

    @Test
    void everyNameDecodesToTheEntryAndInstanceItWasMadeOf() {
        Random random = new Random(11);
        for (int round = 0; round < 10_000; round++) {
            String entry = text(random, ENTRY_FIRST, 1) + text(random, ENTRY_REST, random.nextInt(63));
            String name = random.nextBoolean() ? text(random, LABEL_EDGE, 1)
                    : text(random, LABEL_EDGE, 1) + text(random, LABEL_INNER, random.nextInt(62))
                            + text(random, LABEL_EDGE, 1);
            new EntrySettings(entry, List.of(), Map.of(), 1, ""); // the names the configuration allows

            assertDecodes(InstanceCreator.overlayVolume(entry, name), entry, name, ".qcow2");
            assertDecodes(InstanceCreator.seedVolume(entry, name), entry, name, ".seed.iso");
        }
    }

    private static void assertDecodes(String volume, String entry, String name, String suffix) {
        int firstPlus = volume.indexOf('+');
        String afterLastPlus = volume.substring(volume.lastIndexOf('+') + 1);
        assertThat(volume.substring(0, firstPlus)).as(volume).isEqualTo(entry);
        assertThat(afterLastPlus).as(volume).isEqualTo(name + suffix).doesNotContain(".base.");
        assertThat(volume.length()).as(volume).isLessThanOrEqualTo(63 + 1 + 63 + 9);
    }

    private static String text(Random random, String alphabet, int length) {
        StringBuilder text = new StringBuilder();
        for (int index = 0; index < length; index++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }
}
