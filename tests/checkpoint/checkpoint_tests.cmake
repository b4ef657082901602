# Included by tests/CMakeLists.txt: the checkpoint tests.
#
# dfx_checkpoint_tests: the tensor bundle library, the io ops in local
# sessions, and checkpoints TensorFlow wrote (tests/checkpoint/data/tf,
# from tests/golden/gen_checkpoint.py).
dfx_test_folder(checkpoint DEPS dfx::checkpoint dfx::master
                nlohmann_json::nlohmann_json
                PCH <catch2/catch.hpp> tests/testing/status_matchers.h)

# TensorFlow 2.21 reads checkpoints dfx wrote (locally and through a dfx
# cluster driven by a TensorFlow client): runs when the TensorFlow
# virtualenv exists (tools/tf_env), reported as skipped otherwise.
if(TARGET dfx)
  set(DFX_CHECKPOINT_INTEROP_TEST
      "interop: TensorFlow reads checkpoints dfx wrote")
  add_test(NAME "${DFX_CHECKPOINT_INTEROP_TEST}"
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/interop/run_tf_checkpoint
                   --dfx $<TARGET_FILE:dfx>)
  dfx_test_timeout(timeout 600)
  set_tests_properties("${DFX_CHECKPOINT_INTEROP_TEST}" PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT ${timeout})
endif()
