"""Framework integrations. Import the submodule you need; each imports its framework:

- ``headroom.integrations.langchain``: ``HeadroomChatModel``, ``retrieve_tool`` (langchain-core)
- ``headroom.integrations.litellm``: ``HeadroomLiteLLMCallback`` (litellm optional)
"""
