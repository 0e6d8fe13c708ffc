package dev.egressproxies.fake;

import dev.egressproxies.api.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The settings of one {@code fake} provider entry: the zones, machine types and images it
 * accepts, how long its instances take to boot, where it keeps its instances, and the faults it
 * injects. Every field is optional:
 * <pre>{@code
 * providers:
 *   - name: local
 *     type: fake
 *     zones: [zone-a, zone-b]          # default [zone-a]
 *     machineTypes: [small, large]     # default [small]
 *     images: [debian-12]              # default [debian-12]
 *     bootDelay: 2s                    # default 0: RUNNING at once
 *     stateFile: fake/local.json       # default none: in memory; relative to the state directory
 *     faults:                          # keys: create, get, delete, listManaged
 *       get: {latency: 200ms}
 * }</pre>
 *
 * @param zones        the zone names placements may use; letters, digits, '.', '_' and '-'
 * @param machineTypes the machine type names placements may use
 * @param images       the image names placements may use
 * @param bootDelay    how long an instance stays PROVISIONING after it is created or started
 * @param stateFile    the JSON file that keeps the instances, shared by every process using it;
 *                     {@code null} keeps them in memory, for the life of the provider. A relative
 *                     path is resolved against the platform's state directory
 * @param faults       the faults to inject, by operation name (see {@link FaultConfig})
 */
public record FakeConfig(List<String> zones, List<String> machineTypes, List<String> images,
                         Duration bootDelay, Path stateFile, Map<String, FaultConfig> faults) {

    /** The zones of an entry that configures none. */
    public static final List<String> DEFAULT_ZONES = List.of("zone-a");
    /** The machine types of an entry that configures none. */
    public static final List<String> DEFAULT_MACHINE_TYPES = List.of("small");
    /** The images of an entry that configures none. */
    public static final List<String> DEFAULT_IMAGES = List.of("debian-12");

    /** Applies defaults and rejects values that cannot work, saying which field to fix and how. */
    public FakeConfig {
        zones = names("zones", zones, DEFAULT_ZONES, true);
        machineTypes = names("machineTypes", machineTypes, DEFAULT_MACHINE_TYPES, false);
        images = names("images", images, DEFAULT_IMAGES, false);
        bootDelay = bootDelay == null ? Duration.ZERO : bootDelay;
        if (bootDelay.isNegative()) {
            throw new IllegalArgumentException("bootDelay is negative (" + bootDelay
                    + "): use zero (RUNNING at once) or a positive duration, for example 2s");
        }
        if (stateFile != null && stateFile.toString().isBlank()) {
            throw new IllegalArgumentException(
                    "stateFile is empty: give a file path, or leave stateFile out to keep instances in memory");
        }
        faults = faults(faults);
    }

    /** The configuration with every default: one zone, one machine type, one image, in memory. */
    public static FakeConfig defaults() {
        return new FakeConfig(null, null, null, null, null, null);
    }

    /** This configuration with other zones. */
    public FakeConfig withZones(String... zones) {
        return new FakeConfig(List.of(zones), machineTypes, images, bootDelay, stateFile, faults);
    }

    /** This configuration with another boot delay. */
    public FakeConfig withBootDelay(Duration bootDelay) {
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, faults);
    }

    /** This configuration keeping its instances in {@code stateFile} ({@code null}: in memory). */
    public FakeConfig withStateFile(Path stateFile) {
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, faults);
    }

    /** This configuration with {@code fault} injected into {@code operation}. */
    public FakeConfig withFault(Operation operation, FaultConfig fault) {
        Map<String, FaultConfig> more = new LinkedHashMap<>(faults);
        more.put(operation.displayName(), fault);
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, more);
    }

    /** The configured faults keyed by the operation they apply to. */
    Map<Operation, FaultConfig> faultsByOperation() {
        Map<Operation, FaultConfig> byOperation = new EnumMap<>(Operation.class);
        faults.forEach((name, fault) -> byOperation.put(operationNamed(name), fault));
        return byOperation;
    }

    private static List<String> names(String field, List<String> names, List<String> defaults, boolean zoneNames) {
        if (names == null) {
            return defaults;
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException(field + " is empty: list at least one name, for example "
                    + defaults + ", or leave " + field + " out to get that default");
        }
        Set<String> seen = new HashSet<>();
        for (int index = 0; index < names.size(); index++) {
            String name = names.get(index);
            String position = field + "[" + index + "]";
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException(position + " is empty: give every entry of " + field + " a name");
            }
            if (zoneNames && !ProviderIds.isZoneName(name)) {
                throw new IllegalArgumentException(position + " '" + name + "' is not a valid zone name: use 1 to 63"
                        + " letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException(position + " '" + name + "' is listed twice in " + field
                        + ": remove the duplicate");
            }
        }
        return List.copyOf(names);
    }

    private static Map<String, FaultConfig> faults(Map<String, FaultConfig> faults) {
        if (faults == null) {
            return Map.of();
        }
        Map<String, FaultConfig> checked = new LinkedHashMap<>();
        faults.forEach((name, fault) -> {
            operationNamed(name);
            if (fault == null) {
                throw new IllegalArgumentException("faults." + name + " has no settings: give at least one of kind,"
                        + " latency, hang or failAfter, or remove faults." + name);
            }
            checked.put(name, fault);
        });
        return Collections.unmodifiableMap(checked);
    }

    private static Operation operationNamed(String name) {
        for (Operation operation : FaultInjector.OPERATIONS) {
            if (operation.displayName().equals(name)) {
                return operation;
            }
        }
        throw new IllegalArgumentException("faults has an unknown operation '" + name + "': use one of "
                + FaultInjector.OPERATIONS.stream().map(Operation::displayName).collect(Collectors.joining(", ")));
    }
}
