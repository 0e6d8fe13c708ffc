package dev.egressproxies.runtime.apply;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Works out what {@code apply} must change, only in the entries the set names: create what is
 * missing, start what is stopped, replace what runs with another zone, machine type, image or
 * user-data ({@link Drift}), and delete managed instances that the set does not list.
 *
 * <p>Instances made before a name was unique across an entry's zones may hold one name twice; the
 * one that matches the request is kept (else the first), and the others are deleted.
 */
public final class Planner {

    /**
     * Plans the changes.
     *
     * @param desired the desired proxies
     * @param managed every entry the set names, mapped to its managed instances now
     */
    public Plan plan(List<ResolvedProxy> desired, Map<String, List<Instance>> managed) {
        List<PlanStep> starts = new ArrayList<>();
        List<PlanStep> replacements = new ArrayList<>();
        int unchanged = 0;
        Set<String> kept = new HashSet<>();
        for (ResolvedProxy proxy : desired) {
            String name = proxy.request().name();
            List<Instance> sameName = managed.getOrDefault(proxy.entry(), List.of()).stream()
                    .filter(instance -> instance.name().equals(name))
                    .sorted(Comparator.comparing(instance -> !Drift.between(proxy.request(), instance).isEmpty()))
                    .toList();
            if (sameName.isEmpty()) {
                starts.add(new PlanStep(PlanStep.Action.CREATE, proxy.entry(), name, "", proxy.request()));
                continue;
            }
            Instance existing = sameName.get(0);
            kept.add(key(proxy.entry(), existing));
            List<Drift.Change> changes = Drift.between(proxy.request(), existing);
            if (!changes.isEmpty()) {
                replacements.add(new PlanStep(PlanStep.Action.REPLACE, proxy.entry(), name, existing.id(),
                        proxy.request(), changes));
            } else if (existing.state() == InstanceState.STOPPED) {
                starts.add(new PlanStep(PlanStep.Action.START, proxy.entry(), name, existing.id(), proxy.request()));
            } else {
                unchanged++;
            }
        }
        List<PlanStep> steps = new ArrayList<>(starts);
        steps.addAll(replacements);
        for (Map.Entry<String, List<Instance>> entry : managed.entrySet()) {
            for (Instance instance : entry.getValue()) {
                if (!kept.contains(key(entry.getKey(), instance))) {
                    steps.add(new PlanStep(PlanStep.Action.DELETE, entry.getKey(), instance.name(), instance.id(), null));
                }
            }
        }
        return new Plan(steps, unchanged);
    }

    private static String key(String entry, Instance instance) {
        return entry + "/" + instance.id();
    }
}
