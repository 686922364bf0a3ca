"""The rule registry: stable codes, their PyTorch graph-break ids, documentation and fixes.

One module per rule (`gm101_data_dependent_if.py`, ...) holds its `RULE`; registering it is one
line below. Codes are grouped by family like ruff's: GM1xx branches, GM2xx validation guards,
GM3xx scalar extraction, GM4xx Python I/O, GM5xx data-dependent shapes, GM6xx code Dynamo cannot
trace, GM7xx autograd state, and GM8xx breaks Dynamo reported at run time (`RUNTIME_RULES`, from a census). Graph-break
ids come from torch/_dynamo/graph_break_registry.json and were measured on
torch 2.13.
"""

from __future__ import annotations

from graphmend_bot.findings import Finding
from graphmend_bot.rules import (
    gm101_data_dependent_if,
    gm102_data_dependent_ternary,
    gm103_data_dependent_bool_op,
    gm104_data_dependent_while,
    gm105_data_dependent_operator,
    gm106_data_dependent_all_any,
    gm201_tensor_validation_guard,
    gm202_tensor_assert,
    gm203_assert_on_objects,
    gm301_tensor_item,
    gm302_tensor_to_python_scalar,
    gm303_tensor_tolist,
    gm304_range_of_tensor,
    gm305_tensor_as_scalar_argument,
    gm401_print_in_traced_code,
    gm402_logger_in_traced_code,
    gm403_warnings_warn_in_traced_code,
    gm501_dynamic_shape_operator,
    gm502_boolean_mask_indexing,
    gm503_data_dependent_repeat,
    gm601_serialization_in_traced_code,
    gm602_file_io_in_traced_code,
    gm603_explicit_graph_break,
    gm604_untraceable_call,
    gm605_breaking_call_on_local_object,
    gm606_uninitialized_module_init,
    gm607_parameter_in_traced_code,
    gm608_break_inside_dependency,
    gm609_breaking_call_with_generator,
    gm610_metaclass_call_in_eager_frame,
    gm611_comprehension_in_skipped_frame,
    gm612_unsupported_context_manager,
    gm613_recurrent_module_call,
    gm614_class_assignment,
    gm615_typed_dict_with_optional_keys,
    gm616_class_statement_in_traced_code,
    gm617_exception_attribute_assignment,
    gm618_sort_by_tensor_key,
    gm619_super_object_method_call,
    gm620_disabled_function_call,
    gm621_untraceable_tensor_method,
    gm622_tensor_as_text,
    gm623_tensor_operator_on_object,
    gm624_break_in_dict_view_comprehension,
    gm625_exception_keyword_arguments,
    gm626_module_reinit_through_super,
    gm627_extremum_by_key_over_tensors,
    gm628_getattribute_class_built,
    gm629_returned_unrebuildable_object,
    gm630_tensor_attribute_assignment,
    gm631_untraceable_check_message,
    gm632_untraceable_ndarray_method,
    gm633_hook_reads_grad_layout,
    gm634_autograd_apply_arity,
    gm635_tensor_subclass_init_unbound,
    gm637_untraceable_autograd_function,
    gm640_skipped_library_call,
    gm641_as_subclass_to_base_class,
    gm642_autograd_functional_call,
    gm643_dispatch_mode_entered,
    gm644_hasattr_on_torch_function,
    gm645_hook_mutates_outer_state,
    gm646_held_generator_argument,
    gm647_held_generator_method,
    gm648_tensor_method_with_callable,
    gm650_third_party_skipped_call,
    gm651_compiled_extension_call,
    gm652_len_of_compiled_object,
    gm653_next_on_held_iterator,
    gm654_builtin_pow_of_tensor,
    gm655_torch_optimizer_step,
    gm656_data_pointer_arithmetic,
    gm657_breaking_property_read,
    gm658_breaking_operator_dunder,
    gm660_breaking_context_manager,
    gm661_breaking_try_body,
    gm662_breaking_method_on_tensor_subclass,
    gm663_module_hook_registration,
    gm666_break_in_consumed_generator,
    gm670_sparse_or_nested_tensor_built,
    gm671_grad_fn_read,
    gm672_data_pointer_comparison,
    gm673_in_place_view_on_input,
    gm674_unsupported_event_method,
    gm675_hook_handle_in_global,
    gm676_iterated_held_dict_view,
    gm677_sized_held_dict_view,
    gm678_membership_in_held_dict_values,
    gm679_membership_in_held_dict_items,
    gm680_traceback_instruction_read,
    gm681_made_up_id_comparison,
    gm682_typing_construct_method,
    gm683_classmethod_behind_metaclass_getattribute,
    gm684_manager_built_by_breaking_call,
    gm685_generic_alias_subscript,
    gm690_distributed_call_in_traced_code,
    gm691_compile_call_in_traced_code,
    gm692_pydantic_class_construction,
    gm693_deepcopy_of_held_module,
    gm694_logger_query_in_traced_code,
    gm695_optimizer_built_in_traced_code,
    gm701_autograd_in_traced_code,
    gm801_dynamo_break,
)
from graphmend_bot.rules.detect import Conversion, Detection
from graphmend_bot.rules.rule import GB_SITE, Rule, gb_url

RULES: tuple[Rule, ...] = (
    gm101_data_dependent_if.RULE,
    gm102_data_dependent_ternary.RULE,
    gm103_data_dependent_bool_op.RULE,
    gm104_data_dependent_while.RULE,
    gm105_data_dependent_operator.RULE,
    gm106_data_dependent_all_any.RULE,
    gm201_tensor_validation_guard.RULE,
    gm202_tensor_assert.RULE,
    gm203_assert_on_objects.RULE,
    gm301_tensor_item.RULE,
    gm302_tensor_to_python_scalar.RULE,
    gm303_tensor_tolist.RULE,
    gm304_range_of_tensor.RULE,
    gm305_tensor_as_scalar_argument.RULE,
    gm401_print_in_traced_code.RULE,
    gm402_logger_in_traced_code.RULE,
    gm403_warnings_warn_in_traced_code.RULE,
    gm501_dynamic_shape_operator.RULE,
    gm502_boolean_mask_indexing.RULE,
    gm503_data_dependent_repeat.RULE,
    gm601_serialization_in_traced_code.RULE,
    gm602_file_io_in_traced_code.RULE,
    gm603_explicit_graph_break.RULE,
    gm604_untraceable_call.RULE,
    gm605_breaking_call_on_local_object.RULE,
    gm606_uninitialized_module_init.RULE,
    gm607_parameter_in_traced_code.RULE,
    gm608_break_inside_dependency.RULE,
    gm609_breaking_call_with_generator.RULE,
    gm610_metaclass_call_in_eager_frame.RULE,
    gm611_comprehension_in_skipped_frame.RULE,
    gm612_unsupported_context_manager.RULE,
    gm613_recurrent_module_call.RULE,
    gm614_class_assignment.RULE,
    gm615_typed_dict_with_optional_keys.RULE,
    gm616_class_statement_in_traced_code.RULE,
    gm617_exception_attribute_assignment.RULE,
    gm618_sort_by_tensor_key.RULE,
    gm619_super_object_method_call.RULE,
    gm620_disabled_function_call.RULE,
    gm621_untraceable_tensor_method.RULE,
    gm622_tensor_as_text.RULE,
    gm623_tensor_operator_on_object.RULE,
    gm624_break_in_dict_view_comprehension.RULE,
    gm625_exception_keyword_arguments.RULE,
    gm626_module_reinit_through_super.RULE,
    gm627_extremum_by_key_over_tensors.RULE,
    gm628_getattribute_class_built.RULE,
    gm629_returned_unrebuildable_object.RULE,
    gm630_tensor_attribute_assignment.RULE,
    gm631_untraceable_check_message.RULE,
    gm632_untraceable_ndarray_method.RULE,
    gm633_hook_reads_grad_layout.RULE,
    gm634_autograd_apply_arity.RULE,
    gm635_tensor_subclass_init_unbound.RULE,
    gm637_untraceable_autograd_function.RULE,
    gm640_skipped_library_call.RULE,
    gm641_as_subclass_to_base_class.RULE,
    gm642_autograd_functional_call.RULE,
    gm643_dispatch_mode_entered.RULE,
    gm644_hasattr_on_torch_function.RULE,
    gm645_hook_mutates_outer_state.RULE,
    gm646_held_generator_argument.RULE,
    gm647_held_generator_method.RULE,
    gm648_tensor_method_with_callable.RULE,
    gm650_third_party_skipped_call.RULE,
    gm651_compiled_extension_call.RULE,
    gm652_len_of_compiled_object.RULE,
    gm653_next_on_held_iterator.RULE,
    gm654_builtin_pow_of_tensor.RULE,
    gm655_torch_optimizer_step.RULE,
    gm656_data_pointer_arithmetic.RULE,
    gm657_breaking_property_read.RULE,
    gm658_breaking_operator_dunder.RULE,
    gm660_breaking_context_manager.RULE,
    gm661_breaking_try_body.RULE,
    gm662_breaking_method_on_tensor_subclass.RULE,
    gm663_module_hook_registration.RULE,
    gm666_break_in_consumed_generator.RULE,
    gm670_sparse_or_nested_tensor_built.RULE,
    gm671_grad_fn_read.RULE,
    gm672_data_pointer_comparison.RULE,
    gm673_in_place_view_on_input.RULE,
    gm674_unsupported_event_method.RULE,
    gm675_hook_handle_in_global.RULE,
    gm676_iterated_held_dict_view.RULE,
    gm677_sized_held_dict_view.RULE,
    gm678_membership_in_held_dict_values.RULE,
    gm679_membership_in_held_dict_items.RULE,
    gm680_traceback_instruction_read.RULE,
    gm681_made_up_id_comparison.RULE,
    gm682_typing_construct_method.RULE,
    gm683_classmethod_behind_metaclass_getattribute.RULE,
    gm684_manager_built_by_breaking_call.RULE,
    gm685_generic_alias_subscript.RULE,
    gm690_distributed_call_in_traced_code.RULE,
    gm691_compile_call_in_traced_code.RULE,
    gm692_pydantic_class_construction.RULE,
    gm693_deepcopy_of_held_module.RULE,
    gm694_logger_query_in_traced_code.RULE,
    gm695_optimizer_built_in_traced_code.RULE,
    gm701_autograd_in_traced_code.RULE,
)

# Rules no static analysis reports: their findings come from what Dynamo said at run time (a census).
RUNTIME_RULES: tuple[Rule, ...] = (gm801_dynamo_break.RULE,)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}  # the static rules
ALL_RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in (*RULES, *RUNTIME_RULES)}

# Every id a static rule's finding can carry (Rule.gb_ids).
STATIC_GB_IDS: frozenset[str] = frozenset(gb_id for rule in RULES for gb_id in rule.gb_ids)

__all__ = ["ALL_RULES_BY_CODE", "GB_SITE", "RULES", "RULES_BY_CODE", "RUNTIME_RULES", "STATIC_GB_IDS", "Conversion",
           "Detection", "Rule", "advice_for", "carried_gb_ids", "gb_url", "rule_for", "select_codes"]


def carried_gb_ids(rule: Rule) -> frozenset[str]:
    """The ids a finding of `rule` can carry: its own, and for a rule that quotes the break inside a
    dependency (GM608, which the other rules find there) any static rule's."""
    quotes = rule.detection.dependency_call is not None
    return frozenset(rule.gb_ids) | (STATIC_GB_IDS if quotes else frozenset())


def rule_for(code: str) -> Rule:
    return RULES_BY_CODE[code]


def advice_for(finding: Finding) -> str:
    """The `help:` advice of the finding's rule, naming its own code; "" for an unknown rule."""
    rule = ALL_RULES_BY_CODE.get(finding.code)
    if finding.breaks_at:  # at the call that brings the break in: the rule's advice is for the break's line
        return (f"the break itself is at {finding.breaks_at}: fix it there (`graphmend check` on that file shows "
                f"how), or make this call outside the compiled region")
    return rule.advice_for(finding) if rule else ""


def select_codes(select: list[str] | None, ignore: list[str] | None,
                 rules: tuple[Rule, ...] = RULES) -> frozenset[str]:
    """Codes of `rules` (default: the static ones) enabled by ruff-style prefixes: `GM1` selects
    the family, `GM101` one rule."""
    chosen = {
        rule.code
        for rule in rules
        if not select or any(rule.code.startswith(prefix) for prefix in select)
    }
    for prefix in ignore or []:
        chosen = {code for code in chosen if not code.startswith(prefix)}
    return frozenset(chosen)
